"""The hub on AWS Lambda: the same :class:`~dynabase.hub.core.HubCore`, publishing through the IoT data plane.

* ``on_device_message``: an IoT topic rule ``SELECT *, topic(5) AS deviceId FROM 'dynabase/v1/T/up/+'``
  invokes it with a device's message (and the device id the broker authenticated);
* ``on_stream``: the table's stream (``NEW_AND_OLD_IMAGES``) invokes it with a batch of records.

Environment: ``DYNABASE_SCHEMA`` (the schema file's path in the deployment package), ``DYNABASE_TABLE``,
``DYNABASE_IOT_ENDPOINT`` (optional: the account's IoT data endpoint, ``https://...-ats.iot.REGION.
amazonaws.com``). Answers go out with ``iot-data`` ``Publish`` at QoS 1. A push split in parts (a single
change above the 128 KiB message limit) reaches one invocation per part: the parts are joined in the table
(:class:`~dynabase.hub.parts.TableJoiner`), and the invocation that receives the last one handles the push.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from .core import HubCore, Message


@lru_cache(maxsize=1)
def hub() -> HubCore:
    """The function's hub, built once per container from its environment."""
    import boto3

    from ..model.table import Table
    from ..schema import load_schema

    schema, table = os.environ.get("DYNABASE_SCHEMA"), os.environ.get("DYNABASE_TABLE")
    if not schema or not table:
        raise RuntimeError("the hub's function needs DYNABASE_SCHEMA (a schema file) and DYNABASE_TABLE")
    client = boto3.client("dynamodb")
    return HubCore(Table(table, client, load_schema(Path(schema)), side="cloud"), durable_parts=True)


@lru_cache(maxsize=1)
def iot() -> Any:
    import boto3

    endpoint = os.environ.get("DYNABASE_IOT_ENDPOINT") or None
    if endpoint and "://" not in endpoint:
        endpoint = f"https://{endpoint}"
    return boto3.client("iot-data", endpoint_url=endpoint)


def publish(messages: list[Message], client: Any = None) -> int:
    client = client or iot()
    for topic, payload in messages:
        client.publish(topic=topic, qos=1, payload=payload)
    return len(messages)


def on_device_message(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """A device's message, as the topic rule hands it over: the payload's fields and ``deviceId``."""
    device = str(event.get("deviceId") or "")
    message = {k: v for k, v in event.items() if k != "deviceId"}
    return {"published": publish(hub().handle(device, message))}


def on_stream(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """A batch of the table's stream records: each new version fanned out to the devices of its scope."""
    return {"published": publish(hub().fan_out(event))}


__all__ = ["hub", "on_device_message", "on_stream", "publish"]
