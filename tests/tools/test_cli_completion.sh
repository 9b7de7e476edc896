#!/bin/bash
# The bash completion script (tools/cli/clgather.bash-completion) against
# the built binary: it completes every command `clgather --help` lists, a
# command's options from its --help, option values and file operands.
# Usage: test_cli_completion.sh SCRIPT CLGATHER
set -u
script=$1
bin=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/bin"
ln -s "$bin" "$dir/bin/clgather"
PATH=$dir/bin:$PATH
shopt -s extglob
# shellcheck source=/dev/null
source "$script"
fail=0
complete_words() { # WORDS...: COMPREPLY for the last one, one a line
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _clgather
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() { # DESCRIPTION WANT GOT
  if [[ $2 != "$3" ]]; then
    echo "FAIL: $1: want [$2], got [$3]"
    fail=1
  fi
}
expect "commands after ga" "$(printf '%s\n' gather gather-block-quantized gather-elements gather-nd)" \
  "$(complete_words clgather ga)"
# every command the help lists is completed
for c in $(clgather --help | sed -n '/^commands:/,/^$/p' |
  sed -n 's/^  \([a-z][-a-z]*\) .*/\1/p; s/^  \([a-z][-a-z]*\)$/\1/p' | sort -u); do
  got=$(complete_words clgather "$c")
  grep -qx -- "$c" <<<"$got" || { echo "FAIL: command $c not completed"; fail=1; }
done
expect "gather --ax" "--axis" "$(complete_words clgather gather --ax)"
expect "global -v before the command" "--verbose
--version" "$(complete_words clgather --ver)"
expect "scatter-nd --reduction m" "$(printf '%s\n' max min mul)" \
  "$(complete_words clgather scatter-nd --reduction m)"
expect "gather --mode" "$(printf '%s\n' clip raise wrap)" \
  "$(complete_words clgather gather --mode '')"
expect "selftest --ju" "--junit" "$(complete_words clgather selftest --ju)"
touch "$dir/a.npy" "$dir/b.npz" "$dir/c.txt"
expect "file operands" "$(printf '%s\n' "$dir/a.npy" "$dir/b.npz")" \
  "$(complete_words clgather gather "$dir/" | grep -v '/bin$')"
exit $fail
