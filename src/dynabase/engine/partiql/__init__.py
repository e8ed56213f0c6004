"""PartiQL for the embedded engine: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.

``lexer`` and ``parser`` turn a statement into an AST, ``translate`` turns the AST into the engine's own
Query/Scan/GetItem/PutItem/UpdateItem/DeleteItem requests, and ``operations`` runs them.
"""

from .operations import batch_execute_statement, execute_statement, execute_transaction

__all__ = ["batch_execute_statement", "execute_statement", "execute_transaction"]
