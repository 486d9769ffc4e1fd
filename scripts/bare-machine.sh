#!/usr/bin/env bash
# Makes this machine look like a newcomer's: removes the Debian packages that scripts/system-deps.sh
# installs, so that the README's commands have to bring them back (.ci/run runs this first). A package
# whose removal would take anything else with it (a package the machine had for another reason, such as
# software-properties-common on python3-distro) is kept, and one line says so. Root only; it removes
# nothing but those packages (their configuration and their automatically installed dependencies stay).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "bare-machine: must run as root (it removes Debian packages)" >&2
  exit 1
fi
read -r -a ours <<<"$(bash scripts/system-deps.sh --list)"
remove=()
for pkg in "${ours[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" = "installed" ] || continue
  # The packages apt would remove with this one; each must be one of ours.
  others=$(apt-get remove -s "$pkg" 2>/dev/null | awk '/^Remv /{print $2}' | while read -r name; do
    case " ${ours[*]} " in *" $name "*) ;; *) printf '%s ' "$name" ;; esac
  done)
  if [ -n "$others" ]; then
    echo "bare-machine: keeping $pkg (removing it would also remove: $others)" >&2
  else
    remove+=("$pkg")
  fi
done
if [ ${#remove[@]} -eq 0 ]; then
  echo "bare-machine: none of the packages is installed" >&2
  exit 0
fi
echo "bare-machine: removing ${remove[*]}" >&2
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "${remove[@]}" >/dev/null
