# Sourced first by the bash scripts in scripts/ that take no options of their
# own parser: `-h` or `--help` as the first argument prints the script's header
# comment (its usage) and exits 0 before the script installs, builds or runs
# anything.
#   source "$(dirname "$0")/lib/help.sh" "$@"
print_script_help() {  # the comment lines after the shebang, without their "# "
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  print_script_help
  exit 0
fi
