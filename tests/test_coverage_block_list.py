"""A CLI written as YAML block-list items, one word per line (`- vllm` / `- serve`), under a key pdlint does not
read as a command: markers are matched line by line, so no line held launch text and the file passed as "No
launch text found" with a typo in its flags (coverage._block_list_markers)."""

import pytest

from pdlint.coverage import find_markers

UNKNOWN = """\
    apiVersion: example.com/v1
    kind: InferenceThing
    spec:
      engine:
        launchArgv:
          - CLI
          - serve
          - Qwen/Qwen3-8B
          - --max-num-seqz
          - "8"
    """


@pytest.mark.parametrize("cli", ["vllm", '"sglang"'])
def test_a_block_list_cli_pdlint_cannot_read_is_reported(scratch_git, cli):
    scratch_git.write("thing.yaml", UNKNOWN.replace("CLI", cli))
    _, report = scratch_git.lint("thing.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD020", 6)]


def test_a_block_list_pdlint_reads_is_covered(scratch_git):
    scratch_git.write("pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: prefill}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              command:
                - vllm
                - serve
                - Qwen/Qwen3-8B
                - --kv-transfer-config
                - '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        """)
    code, report = scratch_git.lint("pod.yaml")
    assert report["findings"] == [] and code == 0 and len(report["launches"]) == 1


def test_markers():
    text = "a:\n  - vllm  # the CLI\n\n  - serve\nb:\n  - sglang\n    - serve\nc: |\n  - vllm\n  - serving\n"
    assert [(m.line, m.column, m.text, m.kind) for m in find_markers(text)] == [(2, 5, "vllm", "launcher")]
    assert find_markers("description: >\n  - vllm\n  - serve\n") == []
    assert find_markers(text, skip=frozenset({2})) == []


def test_block_cli_hint_matches_the_multiline_pattern_it_replaces():
    import random
    import re
    from pdlint.coverage import _block_cli_hint
    old = re.compile(r"^[ \t]*-[ \t]+[\"']?(?:vllm|sglang)[\"']?[ \t]*$", re.M)
    pieces = ["- vllm", "  - 'sglang'", '- "vllm"  ', "-\tsglang", "- vllmx", "x - vllm", "- serve", "vllm", "\n",
              "\n", "\r\n", " ", "# - vllm", "- sglang # c", "-vllm"]
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert _block_cli_hint(text) == bool(old.search(text)), repr(text)
