#!/usr/bin/env bash
# Builds Dovecot's imaptest (the reference IMAP compliance suite) and runs it against a fresh
# inboxd: every scripted test group, then its stress mode (10 clients, 20 s, state tracking on).
#
#   scripts/imaptest.sh                 # build if needed, scripted tests + stress
#   scripts/imaptest.sh --only copy     # one scripted group
#   STRESS_SECS=0 scripts/imaptest.sh   # scripted tests only
#
# Needs Debian's dovecot-dev (headers and libdovecot of Dovecot 2.3) and autoconf, automake,
# libtool, make, gcc: apt-get install dovecot-dev autoconf automake libtool build-essential.
# The source is github.com/dovecot/imaptest (IMAPTEST_SRC=<a checkout> to build from a local copy,
# e.g. where github.com is not reachable). It is pinned to 924f619 (2022-03), the last commit
# before imaptest followed Dovecot 2.4's API, with one call adjusted to Dovecot 2.3.19's
# imap_parser_create(); the build lands in IMAPTEST_DIR (default ~/.cache/inboxd-imaptest).
set -euo pipefail
cd "$(dirname "$0")/.."

COMMIT=924f619
DIR="${IMAPTEST_DIR:-$HOME/.cache/inboxd-imaptest}"
BIN="$DIR/src/src/imaptest"
STRESS_SECS="${STRESS_SECS:-20}"
BUN="${BUN:-node_modules/.bin/bun}"

if ! dpkg -s dovecot-dev >/dev/null 2>&1; then
  echo "dovecot-dev is not installed: apt-get install dovecot-dev autoconf automake libtool build-essential" >&2
  exit 2
fi

if [ ! -x "$BIN" ]; then
  mkdir -p "$DIR"
  rm -rf "$DIR/src"
  git clone -q "${IMAPTEST_SRC:-https://github.com/dovecot/imaptest}" "$DIR/src"
  (
    cd "$DIR/src"
    git checkout -q "$COMMIT"
    # Dovecot 2.3.19's imap_parser_create() takes a params argument (NULL: defaults).
    sed -i 's/imap_parser_create(\(.*\)(size_t)-1);/imap_parser_create(\1(size_t)-1, NULL);/' src/*.c
    ./autogen.sh >"$DIR/build.log" 2>&1
    ./configure --with-dovecot=/usr/lib/dovecot >>"$DIR/build.log" 2>&1
    make -j"$(nproc)" >>"$DIR/build.log" 2>&1
  ) || { echo "imaptest build failed; see $DIR/build.log" >&2; exit 1; }
fi

export LD_LIBRARY_PATH="/usr/lib/dovecot${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
TESTS="$DIR/src/src/tests"
status=0
"$BUN" scripts/imaptest.ts "$BIN" "$TESTS" "$@" || status=$?
if [ "$STRESS_SECS" != "0" ] && [ "$#" -eq 0 ]; then
  "$BUN" scripts/imaptest.ts "$BIN" "$TESTS" --stress "$STRESS_SECS" | tee "$DIR/stress.log" || status=$?
  echo "stress errors: $(grep -c '^Error' "$DIR/stress.log" || true)"
fi
exit "$status"
