"""The cloud side of MQTT sync: a hub between devices (over a broker) and the cloud table.

* :class:`HubCore` (:mod:`.core`): one device message in, the answers out; stream records in, the fan-out out;
  the enforcement of what a device may push and receive (:mod:`.rules`), from its authenticated id.
* :class:`~dynabase.hub.mqtt.MqttHub`: the long-running hub over paho-mqtt (``dynabase sync-hub``).
* :mod:`.aws`: the same core as AWS Lambda handlers (an IoT topic rule; the table's stream).

See ``docs/sync.md`` for the protocol.
"""

from .core import HubCore

__all__ = ["HubCore"]
