"""Paginators for the asyncio lean client, shaped as aiobotocore's: ``async for page in paginator.paginate()``,
``async for item in ....search(expr)`` and ``await ....build_full_result()``.

botocore's :class:`~botocore.paginate.PageIterator` does the bookkeeping (tokens, ``PaginationConfig``'s
``MaxItems``/``PageSize``/``StartingToken``, truncation and the resume token); only its request loop, which calls
the operation, is written again here so that the call can be awaited.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import jmespath
from botocore.exceptions import PaginationError
from botocore.paginate import PageIterator, Paginator


class AsyncPageIterator(PageIterator):
    """Pages of one paginated call, fetched as the caller iterates (``async for``)."""

    def __iter__(self) -> Any:
        raise TypeError("an asyncio paginator's pages are read with 'async for'")

    async def __aiter__(self) -> AsyncIterator[dict]:
        current_kwargs = self._op_kwargs
        previous_next_token = None
        next_token: dict = {key: None for key in self._input_token}
        if self._starting_token is not None:
            next_token = self._parse_starting_token()[0]
        total_items = 0
        first_request = True
        primary_result_key = self.result_keys[0]
        starting_truncation = 0
        self._inject_starting_params(current_kwargs)
        while True:
            parsed = await self._method(**current_kwargs)
            if first_request:
                if self._starting_token is not None:
                    starting_truncation = self._handle_first_request(
                        parsed, primary_result_key, starting_truncation
                    )
                first_request = False
                self._record_non_aggregate_key_values(parsed)
            else:
                starting_truncation = 0
            current = primary_result_key.search(parsed) or []
            truncate_amount = 0
            if self._max_items is not None:
                truncate_amount = total_items + len(current) - self._max_items
            if truncate_amount > 0:
                self._truncate_response(
                    parsed, primary_result_key, truncate_amount, starting_truncation, next_token
                )
                yield parsed
                return
            yield parsed
            total_items += len(current)
            next_token = self._get_next_token(parsed)
            if all(token is None for token in next_token.values()):
                return
            if self._max_items is not None and total_items == self._max_items:
                self.resume_token = next_token
                return
            if previous_next_token is not None and previous_next_token == next_token:
                raise PaginationError(message=f"The same next token was received twice: {next_token}")
            self._inject_token_into_kwargs(current_kwargs, next_token)
            previous_next_token = next_token

    async def search(self, expression: str) -> AsyncIterator[Any]:
        """Each page searched with a JMESPath expression: list results item by item, others as they are."""
        compiled = jmespath.compile(expression)
        async for page in self:
            results = compiled.search(page)
            if isinstance(results, list):
                for result in results:
                    yield result
            else:
                yield results

    async def build_full_result(self) -> dict:
        """Every page merged into one response (with ``NextToken`` when ``MaxItems`` stopped it), as botocore's."""
        pages = [page async for page in self]
        replay = _Replay.__new__(_Replay)
        replay.__dict__.update(self.__dict__)
        replay.pages = pages
        return PageIterator.build_full_result(replay)


class _Replay(PageIterator):
    """Pages already fetched, for botocore's own merging."""

    pages: list[dict]

    def __iter__(self) -> Any:
        return iter(self.pages)


class AsyncPaginator(Paginator):
    """botocore's paginator for an asyncio client: ``paginate(...)`` gives an :class:`AsyncPageIterator`."""

    PAGE_ITERATOR_CLS = AsyncPageIterator


__all__ = ["AsyncPageIterator", "AsyncPaginator"]
