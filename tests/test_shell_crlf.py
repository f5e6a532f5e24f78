"""Hostile-input round rw27/h P11: a shell script with Windows (CRLF) line ends passed clean, while bash passes
`prefill\\r` to the server (SGLang: invalid choice) and `#!/bin/bash\\r` names no interpreter.  PD009 says so (the
launches are still checked, as if the lines ended in LF)."""

SCRIPT = ("#!/bin/bash\n"
          "python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30000\n")


def test_a_crlf_script_is_reported(scratch):
    (scratch.root / "run.sh").write_bytes(SCRIPT.replace("\n", "\r\n").encode())
    code, report = scratch.lint("--strict", "run.sh")
    assert [(f["code"], f["line"], "CRLF" in f["message"]) for f in report["findings"]] == [("PD009", 1, True)]
    assert len(report["launches"]) == 1 and code == 1


def test_lf_scripts_and_crlf_files_without_launches_are_quiet(scratch):
    (scratch.root / "run.sh").write_bytes(SCRIPT.encode())
    (scratch.root / "notes.sh").write_bytes(b"echo hello\r\necho bye\r\n")
    code, report = scratch.lint("--strict", ".")
    assert (code, report["findings"]) == (0, [])
