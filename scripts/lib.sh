# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the sourcing scripts
# Helpers shared by the scripts in this folder; sourced, not run.
# Sets ctile_root (the checkout) and ctile_build (build/, or $CTILE_BUILD_DIR).

ctile_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ctile_build=${CTILE_BUILD_DIR:-$ctile_root/build}

# find_cuda_tool NAME: prints the path of a CUDA toolkit program, or fails. PATH first, then the
# toolkit's usual homes, because NVIDIA's installer does not put /usr/local/cuda/bin on PATH.
find_cuda_tool() {
  local dir path
  # command -v can name a non-executable file on PATH (bash reports it for "permission denied")
  path=$(command -v "$1" 2>/dev/null) && [ -x "$path" ] && { echo "$path"; return 0; }
  for dir in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    [ -n "$dir" ] || continue
    for path in "$dir/bin/$1" "$dir/$1/$1"; do  # compute-sanitizer also sits in <cuda>/compute-sanitizer/
      [ -x "$path" ] && { echo "$path"; return 0; }
    done
  done
  return 1
}
