// SPDX-License-Identifier: Apache-2.0
#version 450
// native_vulkan's launch roundtrip: a kernel that does nothing.
layout(local_size_x = 1) in;
void main() {}
