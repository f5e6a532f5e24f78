"""A function called with the script's `"$@"` when those arguments are not known (a script run with only its role
known) gets unknown arguments, not one placeholder word: MindLab-Research/sglang's `router()` parses options with
`while [[ $# -gt 0 ]]; case "$1" in --prefill) ...; shift 2 ;; esac; done`, and one word that `shift 2` cannot
remove looped to the iteration limit: PD015 "expansions produced more than 1000000 characters" and the router
unchecked (PD020), field test rw12/c."""

SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
ROUTER_BIN="sglang-router"
PREFILL_HOST="${PREFILL_HOST:-10.0.0.75}"
DECODE_HOST="${DECODE_HOST:-10.0.0.67}"

router() {
    local p_urls=()
    local d_urls=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --prefill) p_urls+=("$2"); shift 2 ;;
            --decode)  d_urls+=("$2"); shift 2 ;;
            *) shift ;;
        esac
    done
    [[ ${#p_urls[@]} -eq 0 ]] && p_urls=("${PREFILL_HOST}:30100")
    [[ ${#d_urls[@]} -eq 0 ]] && d_urls=("${DECODE_HOST}:30200")

    local p_args=""; for u in "${p_urls[@]}"; do p_args="$p_args --prefill http://${u}"; done
    local d_args=""; for u in "${d_urls[@]}"; do d_args="$d_args --decode http://${u}"; done

    nohup ${ROUTER_BIN} launch \\
        --pd-disaggregation \\
        ${p_args} ${d_args} \\
        --host 0.0.0.0 --port 30000 \\
        --policy cache_aware \\
        > /root/router.log 2>&1 < /dev/null &
}

case "${1:-}" in
    router)  shift; router "$@" ;;
    *) echo "Usage: $0 {router}"; exit 1 ;;
esac
"""


def test_a_function_given_unknown_arguments_parses_them_as_unknown(scratch_git):
    scratch_git.write("start_pd.sh", SCRIPT)
    code, report = scratch_git.lint("start_pd.sh")
    assert report["findings"] == [] and code == 0
    routers = [l for l in report["launches"] if l["kind"] == "router"]
    assert routers and any("http://10.0.0.75:30100" in l["argv"] for l in routers)


def test_known_words_before_it_are_its_first_arguments(shell_eval):
    cmds, _ = shell_eval('f() { run "$1" "$2"; }\nf a "$@"\n')
    (run,) = [c for c in cmds if c.words[0].text == "run"]
    assert run.words[1].text == "a" and run.words[2].opaque


def test_a_functions_own_arguments_are_not_the_scripts(scratch_git):
    """kvcache-ai/Mooncake's test_epd_sglang.sh: `start_component) shift; start_epd_component "$@"`, whose
    `case $1 in prefill) ... decode)` is the function's argument, not the script's. Read as the script's `$1`,
    pdlint ran the whole script as `test_epd_sglang.sh decode` (12 false PD105, 3 PD101)."""
    scratch_git.write("t.sh", """\
#!/bin/bash
start_component() {
    local role=$1
    case $role in
        prefill) args="--disaggregation-mode prefill --port 30001" ;;
        decode) args="--disaggregation-mode decode --port 30002 --base-gpu-id 1" ;;
    esac
    python -m sglang.launch_server --model-path m $args &
}
case "$1" in
    start_component) shift; start_component "$@" ;;
    *) start_component prefill; start_component decode ;;
esac
""")
    code, report = scratch_git.lint("t.sh")
    assert not [f for f in report["findings"] if f["code"] in ("PD101", "PD105")], report["findings"]
    assert "run as" not in " ".join(l["context"] for l in report["launches"])
