"""Device ↔ cloud sync: the schema's ``process`` map made real.

::

    from dynabase.sync import Sync
    device = Table("app", dynabase.connect("device.db"), schema, side="device")   # device.create_table()
    cloud = Table("app", boto3.client("dynamodb"), schema, side="cloud")          # cloud.create_table()
    sync = Sync(device, cloud, device_id="dev-1")
    sync.sync_once()            # SyncResult(pushed, pulled, conflicts, deletes, in_step)
    sync.run(interval=1.0, stop=threading.Event())

See ``docs/sync.md`` for the guarantees, the conflict rules and the costs.
"""

from .core import Sync, SyncResult, SyncStatus
from .errors import SyncError

__all__ = ["Sync", "SyncError", "SyncResult", "SyncStatus"]
