# scripts/deps.sh - sourced by test.sh and demo.sh: install the Debian packages a step needs, only the
# missing ones, with apt-get (sudo only when not root). Nothing happens when everything is present.
#   dlx_need <command> <package>   note a package if the command is missing
#   dlx_need_pkg <package>         note a package unconditionally
#   dlx_install_needed             apt-get install the noted packages (apt-get update first)

DLX_NEEDED=()

dlx_need() {
  command -v "$1" >/dev/null 2>&1 || dlx_need_pkg "$2"
}

dlx_need_pkg() {
  local p
  for p in "${DLX_NEEDED[@]+"${DLX_NEEDED[@]}"}"; do [ "$p" = "$1" ] && return 0; done
  DLX_NEEDED+=("$1")
}

dlx_install_needed() {
  if [ ${#DLX_NEEDED[@]} -eq 0 ]; then
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "missing packages: ${DLX_NEEDED[*]}; not root and no sudo: install them and run again" >&2
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "missing packages: ${DLX_NEEDED[*]}; no apt-get here: install the equivalents and run again" >&2
    return 1
  fi
  echo "== installing missing packages: ${DLX_NEEDED[*]}"
  "${sudo[@]+"${sudo[@]}"}" apt-get update -qq
  "${sudo[@]+"${sudo[@]}"}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${DLX_NEEDED[@]}"
  DLX_NEEDED=()
}
