# The environment of the cannon installed one folder above this file, for scripts that source
# <prefix>/bin/setenv.bash as they source CANN's: the same as <prefix>/set_env.sh.
# shellcheck disable=SC1091
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)/set_env.sh"
