"""``netbox.library_yaml`` writes port lists without PyYAML's emitter: the text must be the one
PyYAML writes for the whole document in the library's style, scalar by scalar."""

import pytest
import yaml

from planner.exports.netbox import library_yaml


def _pyyaml(doc: dict) -> str:
    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow=False, indentless=False):
            return super().increase_indent(flow, False)

    return "---\n" + yaml.dump(doc, Dumper=Dumper, sort_keys=False, allow_unicode=False,
                               default_flow_style=False, indent=2, width=1000)


DOCS = [
    {"manufacturer": "Generic", "model": "PNL 1x24", "u_height": 1, "is_full_depth": False,
     "comments": "row-end patch panel: 48 LC",
     "front-ports": [{"name": f"{k:03d}", "type": "lc-upc", "positions": 1} for k in (1, 2, 10)],
     "rear-ports": [{"name": "R1", "type": "mpo", "positions": 24}],
     "port-mappings": [{"front_port": "001", "front_port_position": 1, "rear_port": "R1",
                        "rear_port_position": 1}]},
    {"model": "x", "interfaces": [{"name": "yes", "type": "on"}, {"name": "1.5", "type": "-1"},
                                  {"name": "a: b", "type": "x'y"}, {"name": "#c", "type": ""},
                                  {"name": 2.5, "type": True}, {"name": "Ünï", "type": "null"}]},
    {"model": "fallbacks", "empty": [], "item": [{}], "nested": [{"a": [1]}],
     "break": [{"name": "a\nb"}], "none": [{"name": None}], "long": [{"name": "x" * 1200}]},
]


@pytest.mark.parametrize("doc", DOCS)
def test_library_yaml_is_pyyaml_byte_for_byte(doc):
    assert library_yaml(doc) == _pyyaml(doc)
    assert yaml.safe_load(library_yaml(doc)) == doc
