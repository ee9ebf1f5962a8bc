#!/usr/bin/env bash
# Installs what `deno task test` needs beyond Deno: tmux; the shells the suite drives (dash zsh
# fish tcsh csh elvish xonsh rc, and nushell); git, less, python3, node, sqlite3 and vim for the
# agent scenarios (a pager, REPLs, an editor); ps and pgrep (procps) for leak checks; an sshd and
# the ssh client for the remote-host tests. Each is installed only when missing. `.ci/run`, both
# workflows and the README run this one script.
#
# Debian and Ubuntu: apt-get (as root, or through sudo). macOS: Homebrew, for what it packages;
# the suite then runs with TMUX_MCP_SKIP_MISSING=1 and names each test it skips.
#
# Usage: bash scripts/install_test_prerequisites.sh [--deno]   (--deno: also Deno, from npm)
set -uo pipefail

DENO_VERSION=2.9.6
NUSHELL_VERSION=0.115.1

if [ "${1:-}" = --deno ]; then
  if ! command -v deno >/dev/null 2>&1 || ! deno --version | head -n1 | grep -q " ${DENO_VERSION} "; then
    npm install -g "deno@${DENO_VERSION}" </dev/null || exit 1
  fi
fi

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if [ "$(uname -s)" = Darwin ]; then
  # Homebrew has no rc or csh (tcsh answers as csh on macOS); sshd and ssh come with the system.
  missing=()
  for tool in tmux dash zsh fish tcsh elvish xonsh nu git less python3 node sqlite3 vim; do
    case "$tool" in nu) formula=nushell ;; sqlite3) formula=sqlite ;; *) formula=$tool ;; esac
    command -v "$tool" >/dev/null 2>&1 || missing+=("$formula")
  done
  [ "${#missing[@]}" -eq 0 ] || brew install "${missing[@]}" || exit 1
  exit 0
fi

# Debian and Ubuntu: each package is named like its command, but for the ones below.
missing=()
for tool in tmux dash zsh fish tcsh csh elvish xonsh rc git less python3 sqlite3 vim; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v pgrep >/dev/null 2>&1 && command -v ps >/dev/null 2>&1 || missing+=(procps)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1 || missing+=(openssh-client)
if [ "${#missing[@]}" -gt 0 ]; then
  (sudo_if_needed apt-get update &&
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}") </dev/null ||
    exit 1
fi
# nushell is not in Debian: npm ships its binary in a package per platform.
if ! command -v nu >/dev/null 2>&1; then
  case "$(uname -m)" in
    x86_64) nushell=linux-x64 ;;
    aarch64) nushell=linux-arm64 ;;
    *) echo "no nushell package for $(uname -m): the nu tests need TMUX_MCP_SKIP_MISSING=1" >&2; exit 0 ;;
  esac
  sudo_if_needed npm install -g "@nushell/${nushell}@${NUSHELL_VERSION}" </dev/null || exit 1
  sudo_if_needed ln -sf "$(npm root -g)/@nushell/${nushell}/bin/nu" /usr/local/bin/nu || exit 1
fi
