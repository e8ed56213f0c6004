"""Schema tools: documentation, infrastructure as code and NoSQL Workbench models from a OneTable schema.

- :mod:`dynabase.tools.docs` -- ``dynabase docs``: Markdown / HTML data-model pages (:func:`docs.render`)
- :mod:`dynabase.tools.iac` -- ``dynabase iac``: CloudFormation (JSON/YAML), Terraform JSON, CreateTable
- :mod:`dynabase.tools.iac_mqtt` -- ``dynabase iac --sync mqtt``: the table plus the MQTT sync hub's AWS
  deployment (IoT policy, topic rule, functions, roles)
- :mod:`dynabase.tools.workbench` -- NoSQL Workbench data models: :func:`export_workbench`,
  :func:`import_workbench` (``dynabase import-workbench``)
- :mod:`dynabase.tools.common` -- reading schema files, key formats (``device#<deviceId>``), projections

The command-line front end is :mod:`dynabase.cli.schema_tools`.
"""

from __future__ import annotations

from .common import KeyFormat, entity_indexes, key_format, load, read_document, template_format, validate
from .iac import IacOptions, cloudformation, create_table_request, terraform
from .workbench import export_workbench, import_workbench

__all__ = [
    "IacOptions",
    "KeyFormat",
    "cloudformation",
    "create_table_request",
    "entity_indexes",
    "export_workbench",
    "import_workbench",
    "key_format",
    "load",
    "read_document",
    "template_format",
    "terraform",
    "validate",
]
