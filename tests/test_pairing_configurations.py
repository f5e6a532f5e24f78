"""Prefill/decode pairs and the branches of a script that choose a configuration (pairing.other_configuration).

Field test: ddps-lab/vllm-disaggregation ``disagg-exp/launch_configs.sh <config> <role>``: one ``case`` arm per
configuration, each starting its own prefill and decode.  pdlint paired every prefill with every decode, so the
decode of one configuration was compared with the prefill of another (three false VLLM010 / SGL815)."""

SERVER = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B"

CONFIGS = f"""\
    #!/bin/bash
    # usage: launch.sh <small|big> <prefill|decode>
    small_prefill() {{ {SERVER} --tp-size 2 --disaggregation-mode prefill; }}
    small_decode()  {{ {SERVER} --tp-size 2 --disaggregation-mode decode; }}
    big_prefill()   {{ {SERVER} --tp-size 4 --disaggregation-mode prefill; }}
    big_decode()    {{ {SERVER} --tp-size 4 --disaggregation-mode decode; }}
    case "$1" in
      small) case "$2" in prefill) small_prefill ;; decode) small_decode ;; esac ;;
      big)   case "$2" in prefill) big_prefill ;;   decode) big_decode ;;   esac ;;
    esac
    """


def pairs(report) -> list:
    return sorted((p["prefill"]["line"], p["decode"]["line"]) for d in report["pairs"] for p in d["pairs"])


def test_each_configuration_pairs_only_with_itself(scratch_git):
    scratch_git.write("launch.sh", CONFIGS)
    code, report = scratch_git.lint("launch.sh")
    assert pairs(report) == [(3, 4), (5, 6)]
    assert report["findings"] == [] and code == 0


def test_a_mismatch_inside_one_configuration_is_still_reported(scratch_git):
    scratch_git.write("launch.sh", CONFIGS.replace("--tp-size 4 --disaggregation-mode decode",
                                                   "--tp-size 2 --disaggregation-mode decode"))
    _, report = scratch_git.lint("launch.sh")
    assert pairs(report) == [(3, 4), (5, 6)]
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL815", 6)]


def test_arms_that_start_one_role_each_are_one_deployment(scratch_git):
    # the host (or rank) picks the role: node1's prefill and node2's decode serve together
    scratch_git.write("node.sh", f"""\
        #!/bin/bash
        case "$(hostname)" in
          node1) {SERVER} --tp-size 2 --disaggregation-mode prefill ;;
          node2) {SERVER} --tp-size 4 --disaggregation-mode decode ;;
        esac
        """)
    _, report = scratch_git.lint("node.sh")
    assert pairs(report) == [(3, 4)]
    assert [f["code"] for f in report["findings"]] == ["SGL815"]


def test_an_if_choosing_between_two_complete_layouts(scratch_git):
    scratch_git.write("layout.sh", f"""\
        #!/bin/bash
        if [ "$LAYOUT" = wide ]; then
          {SERVER} --tp-size 4 --disaggregation-mode prefill --port 30000 &
          {SERVER} --tp-size 4 --disaggregation-mode decode --port 30001 --base-gpu-id 4 &
        else
          {SERVER} --tp-size 2 --disaggregation-mode prefill --port 30000 &
          {SERVER} --tp-size 2 --disaggregation-mode decode --port 30001 --base-gpu-id 2 &
        fi
        wait
        """)
    _, report = scratch_git.lint("layout.sh")
    assert pairs(report) == [(3, 4), (6, 7)]
    assert "SGL815" not in [f["code"] for f in report["findings"]]
