# Sourced by scripts that delete and re-create a data directory (crashloop,
# recovery-bench): they delete only a directory they (or tpcc) made, which
# holds the marker file `tpcc-owned` (tpcc/owned_dir.h).
#
#   require_owned_dir WHO DIR DEFAULT   returns 1 with a message on stderr when
#       DIR exists, is not empty and has no marker, unless DIR is DEFAULT
#       (the script's own default location, whose contents are its own by
#       name: versions before the marker wrote none there)
#   fresh_owned_dir WHO DIR DEFAULT     the same check, then deletes DIR and
#       creates it again, empty but for a new marker
OWNED_MARKER=tpcc-owned

require_owned_dir() {
  local who=$1 dir=$2 default=$3
  [[ -e $dir ]] || return 0
  if [[ ! -d $dir ]]; then
    echo "$who: refusing to delete $dir: it is not a directory" >&2
    return 1
  fi
  [[ -f $dir/$OWNED_MARKER ]] && return 0
  [[ -z $(ls -A "$dir") ]] && return 0
  [[ $(realpath -m -- "$dir") == $(realpath -m -- "$default") ]] && return 0
  echo "$who: refusing to delete $dir: it is not empty and has no $OWNED_MARKER file, so this" \
    "script did not make it (it may hold someone else's database); give --dir a new or empty" \
    "directory, or delete $dir yourself" >&2
  return 1
}

fresh_owned_dir() {
  local who=$1 dir=$2 default=$3
  require_owned_dir "$who" "$dir" "$default" || return 1
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  echo "made by $who at $(date -u +%FT%TZ) (pid $$); tpcc deletes databases only in directories with this file" \
    >"$dir/$OWNED_MARKER"
}
