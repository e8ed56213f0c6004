"""Device ↔ cloud sync: the schema's ``process`` map made real.

::

    from dynabase.sync import Sync
    device = Table("app", dynabase.connect("device.db"), schema, side="device")   # device.create_table()
    cloud = Table("app", boto3.client("dynamodb"), schema, side="cloud")          # cloud.create_table()
    sync = Sync(device, cloud, device_id="dev-1")
    sync.sync_once()            # SyncResult(pushed, pulled, conflicts, deletes, in_step)
    sync.run(interval=1.0, stop=threading.Event())

A fleet syncs through a hub over MQTT instead (no AWS credentials on the devices): ``Sync(device,
MqttCloud("mqtts://broker:8883", table="app", device_id="dev-1", ...))``, see :mod:`dynabase.hub`.

See ``docs/sync.md`` for the guarantees, the conflict rules, the two topologies and the costs.
"""

from .core import Sync, SyncResult, SyncStatus
from .errors import SyncError
from .mqtt import MqttCloud

__all__ = ["MqttCloud", "Sync", "SyncError", "SyncResult", "SyncStatus"]
