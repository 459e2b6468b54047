# Minimal stand-ins for bash-completion's helpers, when it is not loaded.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    local line="${COMP_LINE:0:COMP_POINT}"
    words=()
    read -ra words <<< "$line"
    if [[ -z $line || $line == *[[:blank:]] ]]; then words+=(""); fi
    cword=$(( ${#words[@]} - 1 ))
    cur="${words[cword]}"
    prev=""
    if (( cword > 0 )); then prev="${words[cword-1]}"; fi
}
fi
if ! declare -F _filedir >/dev/null 2>&1; then
_filedir() {
    local IFS=$'\n'
    if [[ ${1-} == -d ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
fi
