"""pdlint's own diagnostics: input it cannot read, parse or render.

Each bad file gives one finding with its own code, at the file and (when
known) line; the scan goes on.
"""

from pdlint.model import ERROR, WARNING
from pdlint.rules import Rule, register

_C = "input"

UNREADABLE = register(Rule(
    "PD001", "unreadable-file", ERROR,
    "Reports a file pdlint was asked to check but does not read: permissions, a dangling symlink, a symlink "
    "loop, a symlink pointing outside the repository, or no regular file (a FIFO, socket, device or "
    "directory where a file was expected).",
    "A launch file that cannot be read cannot be checked; in CI that must not pass silently. pdlint reads "
    "only regular files inside the repository (docs/safety.md): a committed symlink to `/dev/zero` or to "
    "`../secret.yaml` would otherwise hang the run or print another file into the CI log.",
    "Make the file readable, replace the symlink by the file itself (or point it inside the repository), or "
    "exclude it in `[tool.pdlint] exclude`.", category=_C))

UNDECODABLE = register(Rule(
    "PD002", "undecodable-file", ERROR,
    "Reports a file that is not valid UTF-8 text (or contains NUL bytes).",
    "Launch templates, manifests and scripts are text; a binary or mis-encoded file is either not a launch "
    "file (exclude it) or corrupt.",
    "Re-save the file as UTF-8, or exclude it.", category=_C))

INVALID_YAML = register(Rule(
    "PD003", "invalid-yaml", ERROR,
    "Reports a YAML file (or the rendered output of a YAML template) that does not parse.",
    "Kubernetes and SGLang reject it too; for a template the line given is the template line that produced the "
    "bad output.",
    "Fix the YAML at the reported line.",
    example="args:\n  - --tp-size\n   - 2", example_fixed="args:\n  - --tp-size\n  - \"2\"", category=_C))

TEMPLATE_SYNTAX = register(Rule(
    "PD004", "template-syntax-error", ERROR,
    "Reports a Jinja template that does not compile.",
    "A template that does not compile cannot be rendered for any role.",
    "Fix the template syntax at the reported line.",
    example="{% if role == 'prefill' %}--disaggregation-mode prefill", example_fixed=
    "{% if role == 'prefill' %}--disaggregation-mode prefill{% endif %}", category=_C))

UNDEFINED = register(Rule(
    "PD005", "undefined-variable", ERROR,
    "Reports a template variable that has no value: not set in the template, in `[tool.pdlint.vars]`, a values "
    "file, a per-role `roles.<role>.vars` table or `--var`. Once per variable and template file, at its first use; "
    "the message names the other lines that use it. A variable the template only tests or loops over (`{% if x %}`, "
    "`{% for s in steps %}`), whose name is close to no defined one, looks like no role switch and guards no flags "
    "or role words, is a warning: Jinja's default undefined makes it false / empty without an error, and the "
    "message says what was not rendered. In a manifest with no launch text, a variable used only where no launch "
    "is built from it (an env or ConfigMap value, a name, a label: not under `command`, `args`, an `image`, a "
    "script block, an env variable the command refers to or one named like arguments, nor an expression that "
    "writes keys) is a warning too; a shell template keeps every undefined variable an error.",
    "Templates are rendered with strict undefined semantics: a deployment tool rendering this template would fail "
    "or emit an empty value where a flag value belongs.",
    "Define the variable (in the template, the pdlint config or a values file), or pass it with `--var NAME=VALUE`.",
    example="--model-path {{ model_path }}", example_fixed="[tool.pdlint.vars]\nmodel_path = \"/models/qwen\"",
    category=_C))

RENDER_ERROR = register(Rule(
    "PD006", "template-render-error", ERROR,
    "Reports a template that fails while rendering (a type error, a division by zero, an operation the sandbox "
    "refuses).",
    "The deployment tool would fail the same way; pdlint cannot see the launches the template produces.",
    "Fix the expression at the reported line.", category=_C))

INCLUDE = register(Rule(
    "PD007", "template-include-error", ERROR,
    "Reports an `include`, `import`, `from ... import` or `extends` that names a missing template or one outside "
    "the repository.",
    "Includes resolve relative to the including template, then the configuration's directory (for a template "
    "an Ansible role or play renders, first Ansible's template search path: the role's `templates/` and "
    "directory, the playbook's, the template's own), then the repository root, and must stay inside the "
    "repository: pdlint never reads "
    "files outside it (a pull request could otherwise make CI read arbitrary files).",
    "Fix the template path; keep shared partials inside the repository.", category=_C))

LIMIT = register(Rule(
    "PD008", "resource-limit", ERROR,
    "Reports input that exceeds one of pdlint's safety limits: the resource budget of one file (10 s and 512 MB "
    "for all its stages by default; `time-per-file`, `memory-per-file`: the file is then not checked, "
    "docs/safety.md), file size, render time, rendered size, YAML node count or alias expansion (a limit of "
    "the shell evaluation within a file that is still checked is PD015). A file over its time whose text holds "
    "no launch text, nor do the files it includes or sources, is a warning: the budget stopped a search that had found nothing, and a busy CI runner "
    "must not fail on it. A computed include or `source` name (`{% include \"parts/\" ~ role ~ \".txt\" %}`, "
    "`source \"$DIR/x.sh\"`), or a template name that names no file, may name launch text: an error.",
    "Untrusted input must not hang or exhaust CI; a launch file this large or slow is almost certainly a mistake "
    "(or an attack such as a YAML alias bomb).",
    "Shrink the input, or exclude the file.", category=_C))

UNKNOWN_FILTER = register(Rule(
    "PD016", "unknown-template-filter", WARNING,
    "Reports a Jinja filter or test a template uses that pdlint's Jinja does not have (neither Jinja's own, nor the "
    "`ansible` preset's, nor declared in `[tool.pdlint.jinja] filters`): one the deploy tool registers on its "
    "Environment (`env.filters[\"model_id_label\"] = ...`). pdlint renders the filter's result as a value it cannot "
    "see (opaque: a flag's value pdlint does not know; where flags could stand, PD023) and answers the test false "
    "(what it guards is not rendered). The message says where a Python file of the repository registers it, when one "
    "does (read as text, never run). A name close to one of Jinja's filters or tests (`| defualt`) that no Python "
    "file registers is a misspelling: PD004, with the name it is close to. Reported where the template may hold a "
    "launch, as undefined variables are (PD005).",
    "Jinja refuses to compile a template that uses a filter its Environment lacks, but that depends on the tool's "
    "Environment, not on the template: the tool that registers the filter renders it. pdlint never runs the "
    "repository's code, so what the filter returns is unknown and what depends on it is not checked.",
    "Declare the filters your deploy tool registers: `[tool.pdlint.jinja] filters = [\"model_id_label\"]` (their "
    "results stay values pdlint cannot see, without this warning); give the values a launch's flags need in "
    "`[tool.pdlint.vars]`; fix a misspelt name.",
    example="# tool/render.py registers env.filters[\"model_id_label\"]\nname: {{ model_name | model_id_label }}",
    example_fixed="[tool.pdlint.jinja]\nfilters = [\"model_id_label\"]", category=_C))

SHELL_LIMIT = register(Rule(
    "PD015", "shell-evaluation-limit", WARNING,
    "Reports a limit pdlint's shell evaluation reached in a script that is otherwise checked: more than 16 "
    "branch paths at once, a loop past 256 iterations whose further iterations would run a command or change a "
    "variable a launch reads, a loop whose paths doubled in 4 iterations without becoming fewer between them "
    "(from there it is read as a loop of unknown count: what it sets is unknown after it), nesting, expansion size or step count "
    "(docs/shell-parser.md, Limits), when the paths or iterations it stopped following may have held a launch "
    "(launch text after it, or launch text in a script that launched nothing). Where a limit stopped the "
    "evaluation altogether (more than 1,000,000 expanded characters, 100,000 statements or 2,000 commands) before "
    "a server's entry point, the message says the launches after it were not evaluated.",
    "The launches on the paths pdlint stopped following were not checked; the script itself is valid, so this "
    "says what pdlint did not see rather than what is wrong (launch text it never reached is also reported "
    "as PD020). A warning, as PD020 is: legitimate scripts reach these limits too; a hostile one can use them "
    "(`X=ab; for i in $(seq 30); do X=$X$X; done` before its launches), so a CI gate that must not pass "
    "unchecked launches runs with `--strict`.",
    "Give the variables the script branches on their deploy-time values (`[tool.pdlint.vars]`, `--var`, a "
    "`values` file) so that fewer paths stay open, split the option parser or helpers from the launch, or "
    "suppress it where the paths cut hold no launch.",
    example="while [[ $# -gt 0 ]]; do case \"$1\" in --a) A=$2; shift 2;; ... (18 options) ... esac; done\n"
            "python3 -m sglang.launch_server --model-path \"$MODEL\" $EXTRA",
    example_fixed="# .pdlint.yaml\nvars:\n  MODEL: /models/llama\n  EXTRA: \"\"", category=_C))

SHELL_PARSE = register(Rule(
    "PD009", "shell-parse-error", WARNING,
    "Reports a region of a shell script (or of an `sh -c` string) that does not parse; the rest is still checked. "
    "pdlint parses shell with tree-sitter-bash; where that grammar rejects a text, bash's own parser is asked "
    "(`bash -n`, which reads and runs nothing), and a text bash accepts is not reported.",
    "The shell would reject or misread it, and launches inside it cannot be checked.",
    "Fix the shell syntax at the reported line.",
    example="vllm serve /models/Qwen3-8B\" \\\n  --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    example_fixed="vllm serve /models/Qwen3-8B \\\n  --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    notes="An unterminated quote is reported at the quote to delete or close: a stray `\"` after a model path makes "
          "every later quote pair with the wrong one, so the quote bash names (\"unexpected EOF while looking for "
          "matching\") is further down; the message names both. The quote to delete is sought only in the statement bash could not "
          "complete, on a line whose quotes do not balance (deleting a quote of a well-formed line only re-pairs "
          "the quotes after it); otherwise the quote bash leaves open is the one reported. bash reads such a script up to that statement and "
          "refuses it there: nothing from the statement on runs (the container exits, the server never starts), "
          "and the launch text from there on is reported as not checked (PD020) instead of being read as one "
          "run-together word. It is an error when `bash -n` refuses the text with that message and every "
          "character from the statement on is written in the file (a GitLab job's script items, a Makefile or "
          "justfile recipe too: the separators pdlint adds between their lines hold no quote); a warning where "
          "bash could not be asked, where a value pdlint cannot see stands in the text after the quote (it may "
          "hold the closing one), or where the quote is one pdlint's own text brought.",
    category=_C))

CONFIG_REF = register(Rule(
    "PD010", "values-file-error", ERROR,
    "Reports a values file named in `[tool.pdlint] values` that cannot be read or is not a YAML mapping.",
    "Templates would render without those variables.",
    "Fix the path or the file.", category=_C))

CONFIG_ERROR = register(Rule(
    "PD012", "invalid-config", ERROR,
    "Reports a pdlint config file (`.pdlint.yaml`, `[tool.pdlint]` in a pyproject.toml, `--config FILE`) that "
    "pdlint cannot use: unreadable, not UTF-8, invalid TOML or YAML, a key of the wrong type or out of range "
    "(the message names the key, what it must be and the line), a `values` file outside the repository.",
    "A config decides which rules run and which variables templates render with; guessing at a broken one "
    "could silence rules (a string `extend-ignore = \"SGL\"` read as three one-letter prefixes ignores every "
    "rule). So the files that config governs are not checked (coverage lists them as not checked) and the run "
    "fails; every other file is still checked.",
    "Fix the config at the reported line. A pyproject.toml without a `[tool.pdlint]` table is never read as a "
    "config, whatever it holds.",
    example="[tool.pdlint]\nextend-ignore = \"SGL204\"", example_fixed="[tool.pdlint]\nextend-ignore = [\"SGL204\"]",
    category=_C))

INTERNAL = register(Rule(
    "PD013", "internal-error", ERROR,
    "Reports a file pdlint failed on (an exception while extracting its launches, interpreting them, checking "
    "them or accounting for their coverage): that file, or that stage of it, was not checked.",
    "One bad file must never hide the findings of the others, and a file pdlint did not check must never pass "
    "silently; the exception is a pdlint bug.",
    "Report it with the file (`pdlint --debug FILE` prints the traceback); exclude the file meanwhile if you "
    "must.", category=_C))

OUTSIDE_REF = register(Rule(
    "PD014", "reference-outside-repository", WARNING,
    "Reports a shell `source FILE` / `. FILE` or a Compose `env_file` naming a file pdlint does not read: a "
    "relative path that leaves the repository, a symlink pointing outside it, or no regular file. An "
    "absolute path such as `source /opt/env.sh` is a file of the deploy host: pdlint looks for it inside the "
    "repository (also the file of its name beside the script: a mounted checkout, `source "
    "/host/repo/env.sh`) and, when it is not there, reports it only when a launch after it reads variables no "
    "file pdlint read sets (as for a relative path that is not in the repository). In a script written from an "
    "unquoted here-document (`cat > entry.sh <<EOF`), only the variables it still reads when it runs count "
    "(`\\$PORT`): a `$PORT` the writing script substitutes is set before the sourced file runs, and is said "
    "with the other values pdlint cannot see. A path whose name holds a "
    "variable pdlint cannot see (`source \"$ROOT/configs/${ratio}.env\"` in a loop over a list set outside the "
    "repository) is reported with that variable, the repository files that match the path and a `--var` value "
    "that names one of them.",
    "pdlint never reads files outside the repository (a pull request could otherwise print any file of the CI "
    "machine into the log), so whatever that file sets - variables, functions, flags - was not checked.",
    "Keep the sourced file inside the repository, or give the variables it sets their values in "
    "`[tool.pdlint.vars]` or `--var`.",
    example="#!/bin/sh\nsource ../../common/env.sh\npython -m sglang.launch_server $ARGS",
    example_fixed="#!/bin/sh\nsource ./common/env.sh\npython -m sglang.launch_server $ARGS", category=_C))

SHELL_C_ARGS = register(Rule(
    "PD011", "sh-c-split-arguments", WARNING,
    "Reports a container (or wrapper) that runs `sh -c` with the command split into one word per argument, "
    "e.g. `command: [/bin/sh, -c]` with `args: [python3, -m, sglang.launch_server, ...]`.",
    "`sh -c` takes only the next word as its script; the words after it become `$0`, `$1`, ... of that script "
    "and are never passed to the program, so the server starts without its flags (or not at all). pdlint still "
    "checks the command as if joined, since some operators re-join it.",
    "Drop `sh -c` and list the command in `command`/`args`, or pass the whole command line as one string after "
    "`-c`.",
    example="command: [/bin/sh, -c]\nargs: [python3, -m, sglang.launch_server, --tp-size, \"2\"]",
    example_fixed="command: [/bin/sh, -c]\nargs: [\"python3 -m sglang.launch_server --tp-size 2\"]",
    category="structure"))

UNUSED_SUPPRESSION = register(Rule(
    "PD070", "unused-suppression", WARNING,
    "Reports a code in an inline suppression (`# pdlint: ignore[CODE]`, `{# pdlint: ignore[CODE] #}`, "
    "`# noqa: CODE`) that suppressed nothing: no finding of that code on the line it covers, a rule that is "
    "not enabled there, or a code that is not a pdlint rule (like ruff's RUF100).",
    "A suppression outlives the problem it silenced: once the flag is fixed or moved, the stale comment would "
    "silently hide the next real finding on that line. Unknown codes are usually typos that suppress nothing.",
    "Remove the code from the comment, or the whole comment. `pdlint --ignore-noqa` shows every finding as if "
    "no suppression existed.",
    example="args:\n  - --tp-size\n  - \"2\"   # pdlint: ignore[SGL101] nothing fires here",
    example_fixed="args:\n  - --tp-size\n  - \"2\"", category="suppression"))
