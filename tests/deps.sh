#!/bin/sh
# Install the Debian packages the build needs, when they are missing and we
# can (root with apt-get). Otherwise say what is missing.
#   sh tests/deps.sh            the build's and the test suite's
#   sh tests/deps.sh --browser  also chromium, nodejs and npm: the browser
#                               tests (tests/browser/run.sh; then run
#                               `npm install` in tests/browser/)
set -e
need=""
pkgs="build-essential libsqlite3-dev sqlite3 libzstd-dev libiberty-dev libdw-dev pkg-config libcmocka-dev python3"
# python3-distributed, python3-apsw: tracelite.fleet on Dask and its test (docs/python.md)
pkgs="$pkgs python3-distributed python3-apsw"
# LLVM's demangler (XRay names as llvm-xray prints them); xz for test references
pkgs="$pkgs llvm-14-dev xz-utils"
[ "${1:-}" = --browser ] && pkgs="$pkgs chromium nodejs npm"
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing:$need"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
elif command -v sudo >/dev/null 2>&1; then
  echo "installing with sudo:$need"
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
else
  echo "missing packages:$need (install them with apt-get)" >&2
  exit 1
fi
