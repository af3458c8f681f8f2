#!/bin/sh
# Install the Debian packages the build needs, when they are missing and we
# can (root with apt-get). Otherwise say what is missing.
set -e
need=""
# python3-distributed, python3-apsw: tracelite.fleet on Dask and its test (docs/python.md)
for p in build-essential libsqlite3-dev sqlite3 libzstd-dev libiberty-dev libdw-dev pkg-config libcmocka-dev python3 \
    python3-distributed python3-apsw; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
# LLVM's demangler (XRay names as llvm-xray prints them); xz for test references
for p in llvm-14-dev xz-utils; do
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
