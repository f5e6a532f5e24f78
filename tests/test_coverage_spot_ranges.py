"""Places with unchecked launch text that a command reads from a variable set above it: one spot per command,
whose range never ends before it starts.

Field test: lightseekorg/smg ``scripts/launch-pd-workers.sh`` (a kv config in a variable, the command below it
unrecognised): a coverage entry had ``line: 10, end_line: 3`` (json.md: ``end_line`` is the spot's last line), and
the command got two entries, one per marker."""

SCRIPT = """\
    #!/usr/bin/env bash
    MODEL=meta-llama/Llama-3.1-8B-Instruct
    decode_kv_config='{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'
    prefill_kv_config='{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}'

    python3 -m myco.grpc_server \\
        --model "$MODEL" --port 50051 \\
        --kv-transfer-config "$prefill_kv_config" &

    python3 -m myco.grpc_server \\
        --model "$MODEL" --port 50052 \\
        --kv-transfer-config "$decode_kv_config" &
    wait
    """


def test_one_spot_per_command_and_ranges_in_order(scratch_git):
    scratch_git.write("launch.sh", SCRIPT)
    _, report = scratch_git.lint("launch.sh")
    spots = report["coverage"]["files"]["launch.sh"]["unchecked"]
    assert [(s["line"], s.get("end_line", s["line"])) for s in spots] == [(6, 8), (10, 12)]
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD020", 6), ("PD020", 10)]
