#!/usr/bin/env bash
# Makes sure the programs and services the tests need are there and up; run by `npm test` and
# by .ci/run, so a fresh machine passes `npm test` as the README says. Idempotent and quiet when
# everything is present.
set -euo pipefail
#
# Programs (Debian packages, installed with apt-get when missing: as root directly, otherwise
# through sudo when there is one, else the script stops and says what to install):
#   haproxy   the cluster test (test/cluster/) and `npm run bench:cluster`;
#   chromium  the console's browser tests (test/browser/, /usr/bin/chromium via playwright-core).
#
# SWITCHBOARD_TEST_HAPROXY / SWITCHBOARD_TEST_CHROMIUM name the programs to look for instead (the
# test of this script, test/contract/testServices.test.ts, points them at paths that do not exist
# to play a fresh machine); SWITCHBOARD_TEST_SERVICES=programs stops after the programs.
chromium_bin="${SWITCHBOARD_TEST_CHROMIUM:-/usr/bin/chromium}"
have_haproxy() {
  if [ -n "${SWITCHBOARD_TEST_HAPROXY:-}" ]; then [ -x "$SWITCHBOARD_TEST_HAPROXY" ]; else command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; fi
}
find_missing() {
  need_packages=()
  have_haproxy || need_packages+=(haproxy)
  [ -x "$chromium_bin" ] || need_packages+=(chromium)
}
find_missing
if [ "${#need_packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then as_root=(); elif command -v sudo >/dev/null 2>&1; then as_root=(sudo); else
    echo "testServices: the tests need the Debian packages: ${need_packages[*]}. Install them as root (apt-get install ${need_packages[*]}) and run again." >&2
    exit 1
  fi
  echo "testServices: installing ${need_packages[*]} (apt-get)" >&2
  if ! "${as_root[@]}" apt-get update -qq || ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >/dev/null; then
    echo "testServices: apt-get could not install ${need_packages[*]} (see above). Install them as root (apt-get install ${need_packages[*]}) and run again." >&2
    exit 1
  fi
  find_missing
  if [ "${#need_packages[@]}" -gt 0 ]; then
    echo "testServices: apt-get finished, but ${need_packages[*]} is still missing (chromium is looked for at $chromium_bin, haproxy on PATH or at /usr/sbin/haproxy)." >&2
    exit 1
  fi
fi
[ "${SWITCHBOARD_TEST_SERVICES:-}" = programs ] && exit 0
#
# The store contract suites (test/contract/stores) and the shared-store e2e run against the real
# PostgreSQL and Redis, and FAIL (never skip) when either is unreachable. Start them when they are
# not running (Debian packages postgresql and redis-server; their init scripts), and create the
# test database `switchboard_test` for the current user when missing: the tests connect to
# postgres://$USER@127.0.0.1:5432/switchboard_test and redis://127.0.0.1:6379 (override with
# SWITCHBOARD_TEST_POSTGRES / SWITCHBOARD_TEST_REDIS), each test file on a fresh schema or key
# prefix that it drops at the end. Creating the role and database needs the postgres superuser
# (sudo -u postgres, or running as root with trust auth as on the CI machine).
export USER="${USER:-$(id -un)}"
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  service postgresql start || pg_ctlcluster "$(pg_lsclusters -h | awk 'NR==1{print $1}')" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else sudo -u postgres sh -c "$*"; fi; }
if ! psql -h 127.0.0.1 -d postgres -Atc "SELECT 1 FROM pg_roles WHERE rolname = '$USER'" 2>/dev/null | grep -q 1; then
  as_postgres "psql -Atc \"CREATE ROLE \\\"$USER\\\" LOGIN CREATEDB\""
fi
if ! psql -h 127.0.0.1 -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'switchboard_test'" | grep -q 1; then
  createdb -h 127.0.0.1 switchboard_test
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  service redis-server start
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
