# Step budget for .ci/run (sourced): `step NAME CMD…` runs a step and records its wall time and the CPU time of what it
# ran; `side_by_side NAME1 CMD1 -- NAME2 CMD2` runs two steps at once, each line of output prefixed with its name; the
# table of every step prints when the run ends, also when a step fails (which it names).

BUDGET_ROWS=()
TICKS=$(getconf CLK_TCK)

# CPU seconds (user + system, ×100) of the waited-for children of the shell whose pid is $1: /proc/<pid>/stat's
# cutime and cstime, read without forking (a subshell would report its own).
_child_cpu() {
  local stat
  stat=$(</proc/"$1"/stat)
  stat=${stat##*) }
  # shellcheck disable=SC2086
  set -- $stat
  echo $(((${14} + ${15}) * 100 / TICKS))
}

# Centiseconds since the epoch, from $EPOCHREALTIME.
_now() {
  local t=${EPOCHREALTIME/./}
  echo $((${t:0:-4}))
}

BUDGET_T0=$(_now)

_row() { # wall-cs cpu-cs status name
  BUDGET_ROWS+=("$(printf '%7d.%d %5d.%d %-6s %s' $(($1 / 100)) $(($1 % 100 / 10)) $(($2 / 100)) $(($2 % 100 / 10)) "$3" "$4")")
}

# step NAME CMD…: runs CMD in this shell (so its exports stay) with `set -e`; a failure ends the run.
step() {
  local name=$1
  shift
  printf '\n== %s (%ss)\n' "$name" "$SECONDS"
  BUDGET_CURRENT=$name
  BUDGET_START=$(_now)
  BUDGET_CPU=$(_child_cpu $$)
  "$@"
  _row $(($(_now) - BUDGET_START)) $(($(_child_cpu $$) - BUDGET_CPU)) ok "$name"
  BUDGET_CURRENT=
}

# side_by_side NAME1 CMD1… -- NAME2 CMD2…: both steps at once, each in a subshell with `set -e`; the run fails after
# both end if either failed. Each row shows its own wall and CPU time; a row for the pair shows what the pair took.
side_by_side() {
  local a=() b=() seen=0 arg
  for arg in "$@"; do
    if [ "$arg" = -- ] && [ $seen = 0 ]; then seen=1; elif [ $seen = 0 ]; then a+=("$arg"); else b+=("$arg"); fi
  done
  local dir
  dir=$(mktemp -d)
  printf '\n== side by side: %s ‖ %s (%ss)\n' "${a[0]}" "${b[0]}" "$SECONDS"
  BUDGET_CURRENT="${a[0]} ‖ ${b[0]}"
  local start cpu
  start=$(_now)
  cpu=$(_child_cpu $$)
  BUDGET_START=$start BUDGET_CPU=$cpu
  _side "$dir/a" "${a[@]}" &
  local pa=$!
  _side "$dir/b" "${b[@]}" &
  local pb=$!
  local ra=0 rb=0
  wait $pa || ra=$?
  wait $pb || rb=$?
  local wall=$(($(_now) - start)) total=$(($(_child_cpu $$) - cpu))
  local r
  for r in a b; do
    local w c s n
    read -r w c s n <"$dir/$r.row"
    _row "$w" "$c" "$s" "  $n"
  done
  local status=ok
  [ $ra = 0 ] && [ $rb = 0 ] || status=FAILED
  _row "$wall" "$total" "$status" "(the two side by side)"
  # The two steps' lines are interleaved and the CI shows the run's tail: a failed step's own last lines and its
  # failure lines are printed again here, after both ended, so that the tail says what failed.
  [ $ra = 0 ] || _failed_tail "${a[0]}" "$dir/a.log"
  [ $rb = 0 ] || _failed_tail "${b[0]}" "$dir/b.log"
  rm -rf "$dir"
  BUDGET_CURRENT=
  if [ $status != ok ]; then
    echo "side by side: ${a[0]}: exit $ra; ${b[0]}: exit $rb" >&2
    BUDGET_FAILED_ROW=1
    exit 1
  fi
}

_failed_tail() { # name logfile
  printf '\n== %s FAILED; its failure lines (✗, not ok, failed, Error), then its last 60 lines:\n' "$1"
  grep -E '✗|not ok|[1-9][0-9]* failed|FAILED|Error' "$2" | head -n 60 || true
  echo '…'
  tail -n 60 "$2"
}

_side() { # file-prefix name cmd…: rows to PREFIX.row, output (also) to PREFIX.log
  local rowfile=$1.row logfile=$1.log name=$2
  shift 2
  local start cpu rc me=$BASHPID
  start=$(_now)
  cpu=$(_child_cpu "$me")
  # Not `… || rc=$?`: bash ignores `set -e` inside anything run as the left side of `||`.
  set +e
  (
    set -e
    "$@"
  ) 2>&1 | tee "$logfile" | sed -u "s/^/[$name] /"
  rc=${PIPESTATUS[0]}
  set -e
  local status=ok
  [ $rc = 0 ] || status=FAILED
  echo "$(($(_now) - start)) $(($(_child_cpu "$me") - cpu)) $status $name" >"$rowfile"
  return $rc
}

budget_table() {
  local rc=$?
  if [ -n "${BUDGET_CURRENT:-}" ] && [ -z "${BUDGET_FAILED_ROW:-}" ]; then
    _row $(($(_now) - BUDGET_START)) $(($(_child_cpu $$) - BUDGET_CPU)) FAILED "$BUDGET_CURRENT"
  fi
  printf '\n== budget (wall and CPU seconds per step; %s cores; the run %s)\n' "$(nproc)" \
    "$([ $rc = 0 ] && echo passed || echo "FAILED (exit $rc)")"
  printf '%9s %7s %-6s %s\n' 'wall s' 'CPU s' '' 'step'
  printf '%s\n' "${BUDGET_ROWS[@]}"
  local total=$(($(_now) - BUDGET_T0))
  local cpu
  cpu=$(_child_cpu $$)
  printf '%7d.%d %5d.%d %-6s %s\n' $((total / 100)) $((total % 100 / 10)) $((cpu / 100)) $((cpu % 100 / 10)) '' 'total'
  return $rc
}
trap budget_table EXIT
