"""DynamoDB's expression language: condition, filter, key-condition, update and projection expressions.

Use per request::

    ph = Placeholders(request.get("ExpressionAttributeNames"), request.get("ExpressionAttributeValues"))
    condition = compile_condition(text, "ConditionExpression").bind(ph)   # compile is cached, bind is per request
    update = compile_update(text).bind(ph)
    ph.check_unused()                                                      # after every expression is bound
    if condition.evaluate(item): new_item = update.apply(item)

Every problem is raised as :class:`~dynabase.errors.ValidationException` with DynamoDB's message. The modules:
:mod:`.lexer` and :mod:`.parser` (text to :mod:`.ast`), :mod:`.placeholders`, :mod:`.binder` (checks and
compilation to closures), and :mod:`.condition`, :mod:`.update`, :mod:`.projection`, :mod:`.keycondition`.
"""

from .condition import BoundCondition, Condition, compile_condition
from .keycondition import KeyCondition, key_condition
from .placeholders import Placeholders
from .projection import BoundProjection, Projection, compile_projection
from .reserved import RESERVED_WORDS
from .update import BoundUpdate, Update, compile_update

__all__ = [
    "BoundCondition",
    "BoundProjection",
    "BoundUpdate",
    "Condition",
    "KeyCondition",
    "Placeholders",
    "Projection",
    "RESERVED_WORDS",
    "Update",
    "compile_condition",
    "compile_projection",
    "compile_update",
    "key_condition",
]
