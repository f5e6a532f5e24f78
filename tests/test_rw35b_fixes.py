"""Field round rw35/b (10 public sources of structured formats, on 0043bf2): the problems fixed outside the helper
branches.

P5: a Deployment whose container has only `args` (`--service-discovery`, `--pd-disaggregation`, ...) and an image
pdlint does not know (ZhengWG/sglang sgl-model-gateway/e2e_test/k8s_integration/manifests/gateway-pd.yaml,
`smg-gateway:test`): the PD020 said "`--service-discovery` is not a launcher pdlint knows" and hinted to "call the
server directly" - Kubernetes hands `args` to the image's entry point, as the PD020 of an engine image says.
"""

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: gw
spec:
  template:
    spec:
      containers:
        - name: gateway
          image: IMAGE
          args:
ARGS"""


def _deploy(scratch, image, args):
    scratch.write("gw.yaml", DEPLOY.replace("IMAGE", image).replace(
        "ARGS", "".join(f'            - "{a}"\n' for a in args)))
    code, report = scratch.lint("gw.yaml")
    return [(s["line"], s["reason"]) for s in report["coverage"]["files"]["gw.yaml"]["unchecked"]]


def test_args_with_launch_text_for_an_unknown_image_go_to_its_entry_point(scratch):
    spots = _deploy(scratch, "smg-gateway:test", ["--service-discovery", "--pd-disaggregation", "--port", "30001"])
    assert spots == [(12, "launch text (engine flag `--pd-disaggregation` on line 13) not checked: these arguments go "
                          "to the entry point of image smg-gateway:test, which pdlint does not know, so they were not "
                          "checked as a server's")], spots


def test_args_without_launch_text_for_an_unknown_image_are_no_spot(scratch):
    assert _deploy(scratch, "nginx:1.27", ["--verbose", "--port", "8080"]) == []
