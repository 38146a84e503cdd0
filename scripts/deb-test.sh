#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The packages as a user gets them (docs/releasing.md): builds Release in
# BUILD_DIR (default build-package) with the prefix /usr, makes the .deb and
# the .tar.gz with CPack, installs the .deb with apt-get, builds
# examples/vector_add.c outside the source tree against the installed package
# with find_package and with pkg-config, shared and static
# (tests/install_test.cmake with INSTALLED_PREFIX=/usr), runs each binary and
# the installed anygpu command, checks that the .tar.gz's command runs where
# it is unpacked, then removes the package. Needs root or sudo; refuses to
# run where an anygpu package is installed already.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-package}")
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if dpkg-query -W -f='${Status}' anygpu 2> /dev/null | grep -q "ok installed"; then
  echo "deb-test: an anygpu package is installed already; remove it first" >&2
  exit 2
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DAGPU_BUILD_TESTS=OFF -DAGPU_BUILD_EXAMPLES=OFF -DAGPU_WERROR=ON > /dev/null
cmake --build "$build"
rm -rf "$build/packages"
(cd "$build" && cpack -G "DEB;TGZ" > /dev/null)
deb=$(find "$build/packages" -maxdepth 1 -name 'anygpu_*.deb')
tarball=$(find "$build/packages" -maxdepth 1 -name 'anygpu-*.tar.gz')
[ -f "$deb" ] && [ -f "$tarball" ] || { echo "deb-test: cpack made no .deb or .tar.gz" >&2; exit 1; }
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends
echo "deb-test: $(dpkg-deb -c "$deb" | wc -l) entries in $(basename "$deb")," \
  "$(du -h "$deb" | cut -f1); $(basename "$tarball") $(du -h "$tarball" | cut -f1)"

work=$(mktemp -d)
remove() {
  if dpkg-query -W -f='${Status}' anygpu 2> /dev/null | grep -q "ok installed"; then
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q anygpu > /dev/null
  fi
  rm -rf "$work"
}
trap remove EXIT
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" > /dev/null
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
(cd "$work" && cmake -DSOURCE_DIR="$root" -DINSTALLED_PREFIX=/usr -DWORK_DIR="$work/consumer" \
  -DGENERATOR=Ninja -DLIBDIR="$libdir" -P "$root/tests/install_test.cmake")
/usr/bin/anygpu --version
/usr/bin/anygpu list > /dev/null

# The .tar.gz: relocatable, the command finds its library by its rpath.
mkdir "$work/tar"
tar -xzf "$tarball" -C "$work/tar"
"$work"/tar/anygpu-*/bin/anygpu --version

remove
trap - EXIT
if dpkg-query -W -f='${Status}' anygpu 2> /dev/null | grep -q "ok installed" ||
  [ -e "/usr/$libdir/libanygpu.so.0" ]; then
  echo "deb-test: anygpu is still installed after apt-get remove" >&2
  exit 1
fi
echo "deb-test: the .deb installed, built against (find_package, pkg-config), ran and was removed"
