# Reliability: the API misuse matrix, resources under create/release cycles,
# many threads at once, and data hygiene (docs/reliability.md).
agpu_add_c_test(test_misuse)
agpu_add_c_test(test_hygiene)
agpu_add_c_test(test_load)
agpu_add_c_test(test_resources)
