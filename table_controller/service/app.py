"""The FastAPI app of the table service: REST for reads and dealer/floor input, WebSockets per view.

Routes are thin: each resolves the table and the caller's role through ``Annotated`` dependencies, calls
one controller method and returns a pydantic model. Every error the controller raises is typed
(:class:`~table_controller.controller.errors.TableError`) and becomes a 4xx with
``{"error": {"code", "message", "rule"}}``; a malformed body is a 422 in the same shape. Tests swap the
controller (and through it the devices) with ``app.dependency_overrides[get_registry]``.

Roles: reads of the public view need no token; the dealer view, actions, seats and irregularities need the
dealer (or floor) token; hole cards, alerts and rulings need the floor token; the delayed broadcast stream
needs the broadcast token. Every response or stream message carrying hole cards is journaled as an access.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException

from table_controller.controller.errors import NotAllowedError, NotFoundError, TableError, UnauthorizedError
from table_controller.controller.table import TableController
from table_controller.engine.books import cite
from table_controller.service.guards import RequestGuard, content_security_policy
from table_controller.service.hub import StreamHub
from table_controller.service.models import (
    ActRequest,
    BroadcastView,
    BuyInRequest,
    DealerView,
    DrawRequest,
    ErrorResponse,
    FloorView,
    HandSummary,
    IrregularityRequest,
    PromptAnswer,
    PublicView,
    RulingRequest,
    SitRequest,
    TableSummary,
)
from table_controller.service.roles import Role, RoleTokens
from table_controller.service.views import (
    broadcast_view,
    dealer_view,
    floor_view,
    hand_summaries,
    public_view,
    table_summary,
)

__all__ = ["TableRegistry", "create_app", "get_registry"]

LOG = logging.getLogger("cardtable.service")
WEB_DIR = Path(__file__).resolve().parents[1] / "web"
SCREENS = ("table", "dealer", "floor", "camera", "broadcast")
WS_PROTOCOL = "cardtable"


class TableRegistry:
    """The tables this process serves, their stream hubs and the role tokens."""

    def __init__(self, tables: list[TableController], *, tokens: RoleTokens, broadcast_delay_s: float) -> None:
        self.tokens = tokens
        self.tables: dict[str, TableController] = {}
        self.hubs: dict[str, StreamHub] = {}
        for table in tables:
            hub = StreamHub(broadcast_delay_s=broadcast_delay_s, audit=_auditor(table))
            self.tables[table.table_id] = table
            self.hubs[table.table_id] = hub
            table.add_listener(hub.publish)

    def get(self, table_id: str) -> TableController:
        table = self.tables.get(table_id)
        if table is None:
            raise NotFoundError(f"no table {table_id!r} here; tables: {', '.join(sorted(self.tables)) or 'none'}")
        return table

    def close(self) -> None:
        for hub in self.hubs.values():
            hub.close()


def _auditor(table: TableController) -> Any:
    def audit(role: Role, client: str, hand: int) -> None:
        table.audit_hole_cards(role=role.value, client=client, hand=hand, via="stream")

    return audit


# Dependencies ---------------------------------------------------------------------------------------------


def get_registry(request: Request) -> TableRegistry:
    registry: TableRegistry = request.app.state.registry
    return registry


Registry = Annotated[TableRegistry, Depends(get_registry)]


def get_table(table_id: str, registry: Registry) -> TableController:
    return registry.get(table_id)


Table = Annotated[TableController, Depends(get_table)]


def _presented(authorization: str | None, token: str | None) -> str | None:
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value:
            raise UnauthorizedError("Authorization header must be 'Bearer TOKEN'", code="bad_token")
        return value.strip()
    return token


def get_role(
    registry: Registry,
    authorization: Annotated[str | None, Header()] = None,
    token: Annotated[str | None, Query(description="role token, where a header cannot be sent")] = None,
) -> Role:
    presented = _presented(authorization, token)
    role = registry.tokens.role_of(presented)
    if presented and role is Role.PUBLIC:
        raise UnauthorizedError("that token is not valid at this table", code="bad_token")
    return role


def _scope_role(registry: TableRegistry) -> Any:
    """The role a raw request's credentials grant, for the request guard (a bad token is a role of its own)."""

    def role(scope: Any) -> str:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        try:
            presented = _presented(headers.get("authorization"), (query.get("token") or [None])[0])
        except UnauthorizedError:
            return "bad-token"
        held = registry.tokens.role_of(presented)
        return "bad-token" if presented and held is Role.PUBLIC else held.value

    return role


def _check_seen(registry: TableRegistry, table: TableController, seen: int | None) -> None:
    """An act entered on a screen that had not seen the table's latest state is refused (409)."""
    if seen is None:
        return
    now = registry.hubs[table.table_id].seq
    if seen != now:
        raise NotAllowedError(f"the table has changed since the state your screen shows ({seen}; now {now}): "
                              "look again and re-enter", code="stale_state")


CallerRole = Annotated[Role, Depends(get_role)]


def _needs(needed: Role) -> Any:
    def check(role: CallerRole) -> Role:
        if not RoleTokens.may(role, needed):
            raise UnauthorizedError(f"this needs the {needed.value} token (you are {role.value})")
        return role

    return check


DealerRole = Annotated[Role, Depends(_needs(Role.DEALER))]
FloorRole = Annotated[Role, Depends(_needs(Role.FLOOR))]
BroadcastRole = Annotated[Role, Depends(_needs(Role.BROADCAST))]


def _client(request: Request) -> str:
    host = request.client.host if request.client else "unknown"
    return f"{host} {request.headers.get('user-agent', '')[:60]}".strip()


# The app --------------------------------------------------------------------------------------------------

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "the body cannot be parsed (not JSON)"},
    403: {"model": ErrorResponse, "description": "the role token is missing or wrong"},
    404: {"model": ErrorResponse, "description": "no such table, seat, prompt or hand"},
    409: {"model": ErrorResponse, "description": "not allowed now (names the rule)"},
    422: {"model": ErrorResponse, "description": "malformed request"},
}


def create_app(registry: TableRegistry, *, title: str = "cardtable") -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        registry.close()

    # /docs and /redoc from assets shipped in a Python package (fastapi-offline), not a CDN: a card room's
    # network often reaches nothing outside.
    app = FastAPIOffline(
        title=title,
        summary="A live, dealt Draw Poker table: seats, hands, dealer input, floor rulings and streams per role.",
        version="1",
        lifespan=lifespan,
        responses=_ERRORS,
        favicon_url="/favicon.svg",
    )
    app.state.registry = registry
    app.add_middleware(RequestGuard, tables=registry.tables.get, role=_scope_role(registry),
                       csp=content_security_policy(WEB_DIR))
    _install_error_handlers(app)
    _install_routes(app)
    _install_screens(app)
    return app


def _error(status: int, code: str, message: str, rule: str | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": {"code": code, "message": message, "rule": rule}})


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        return _error(exc.http_status, exc.code, cite(exc.message), cite(exc.rule) if exc.rule else None)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return _error(422, "bad_request", "; ".join(parts) or "malformed request")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail))


def _install_routes(app: FastAPI) -> None:
    @app.get("/api/tables", tags=["tables"])
    def list_tables(registry: Registry, role: CallerRole) -> list[TableSummary]:
        return [table_summary(table.summary()) for table in registry.tables.values()]

    @app.get("/api/tables/{table_id}", tags=["tables"])
    def table_public(table: Table, role: CallerRole) -> PublicView:
        """The public table display: stacks, bets, pots, whose turn, shown cards only."""
        return public_view(table.full_view())

    @app.get("/api/tables/{table_id}/dealer", tags=["tables"])
    def table_dealer(table: Table, role: DealerRole) -> DealerView:
        """The dealer console: public view plus legal actions with amounts, draw entry, prompts, devices."""
        return dealer_view(table.full_view())

    @app.get("/api/tables/{table_id}/floor", tags=["tables"])
    def table_floor(table: Table, role: FloorRole, request: Request) -> FloorView:
        """Everything, hole cards included. Each read is journaled."""
        full = floor_view(table.full_view())
        table.audit_hole_cards(role=role.value, client=_client(request), hand=full.hand, via="rest")
        return full

    @app.get("/api/tables/{table_id}/broadcast", tags=["tables"])
    def table_broadcast(table: Table, role: BroadcastRole, request: Request) -> BroadcastView:
        """The broadcast view: the public view plus hole cards as they stood ``broadcast_delay_s`` ago."""
        delay = table.broadcast_delay_s
        full = table.delayed_view(delay)
        table.audit_hole_cards(role=role.value, client=_client(request), hand=full.hand, via="rest")
        return broadcast_view(full, delay_s=delay)

    # Seats
    @app.post("/api/tables/{table_id}/seats/{seat}", tags=["seats"], status_code=201)
    async def sit_down(table: Table, role: DealerRole, seat: int, body: SitRequest) -> PublicView:
        await table.sit_down(seat, body.name, body.buy_in)
        return public_view(table.full_view())

    @app.post("/api/tables/{table_id}/seats/{seat}/buy-in", tags=["seats"])
    async def buy_in(table: Table, role: DealerRole, seat: int, body: BuyInRequest) -> PublicView:
        await table.buy_in(seat, body.amount)
        return public_view(table.full_view())

    @app.post("/api/tables/{table_id}/seats/{seat}/rebuy", tags=["seats"])
    async def rebuy(table: Table, role: DealerRole, seat: int, body: BuyInRequest) -> PublicView:
        await table.rebuy(seat, body.amount)
        return public_view(table.full_view())

    @app.delete("/api/tables/{table_id}/seats/{seat}", tags=["seats"])
    async def stand_up(table: Table, role: DealerRole, seat: int) -> PublicView:
        await table.stand_up(seat)
        return public_view(table.full_view())

    # The hand
    @app.get("/api/tables/{table_id}/hand", tags=["hand"])
    def hand_state(table: Table, role: DealerRole) -> DealerView:
        """The hand as the dealer sees it, with the legal actions and their amounts."""
        return dealer_view(table.full_view())

    @app.post("/api/tables/{table_id}/hand", tags=["hand"], status_code=201)
    async def start_hand(table: Table, role: DealerRole) -> DealerView:
        """Shuffle and verify the deck in the shoe, then deal the next hand."""
        await table.start_hand()
        return dealer_view(table.full_view())

    @app.post("/api/tables/{table_id}/actions", tags=["hand"])
    async def player_action(table: Table, role: DealerRole, body: ActRequest, registry: Registry) -> DealerView:
        _check_seen(registry, table, body.seen_seq)
        await table.act(body.seat, body.act, body.to, body.cards, role=role.value)
        return dealer_view(table.full_view())

    @app.post("/api/tables/{table_id}/draw", tags=["hand"])
    async def player_draw(table: Table, role: DealerRole, body: DrawRequest, registry: Registry) -> DealerView:
        _check_seen(registry, table, body.seen_seq)
        await table.draw(body.seat, count=body.count, discard=body.discard, role=role.value)
        return dealer_view(table.full_view())

    @app.post("/api/tables/{table_id}/irregularities", tags=["hand"])
    async def irregularity(table: Table, role: DealerRole, body: IrregularityRequest,
                           registry: Registry) -> DealerView:
        _check_seen(registry, table, body.seen_seq)
        details = body.model_dump(include={"card", "count", "looked", "choice", "cards"}, exclude_none=True)
        await table.report_irregularity(body.kind, seat=body.seat, note=body.note, by=role.value, details=details)
        return dealer_view(table.full_view())

    @app.post("/api/tables/{table_id}/prompts/{prompt_id}", tags=["hand"])
    async def answer_prompt(table: Table, role: DealerRole, prompt_id: str, body: PromptAnswer) -> DealerView:
        await table.answer_prompt(prompt_id, body.choice)
        return dealer_view(table.full_view())

    # The floor
    @app.post("/api/tables/{table_id}/rulings", tags=["floor"])
    async def ruling(table: Table, role: FloorRole, body: RulingRequest) -> FloorView:
        await table.floor_ruling(body)
        return floor_view(table.full_view())

    @app.post("/api/tables/{table_id}/alerts/{alert_id}/ack", tags=["floor"])
    async def ack_alert(table: Table, role: FloorRole, alert_id: str) -> FloorView:
        table.acknowledge_alert(alert_id)
        return floor_view(table.full_view())

    # History
    @app.get("/api/tables/{table_id}/history", tags=["history"])
    def history(table: Table, role: CallerRole) -> list[HandSummary]:
        """The hands played at this table: results only (public)."""
        return hand_summaries(table.history())

    @app.get("/api/tables/{table_id}/history/{hand}", tags=["history"])
    def hand_record(table: Table, role: FloorRole, hand: int, request: Request) -> dict[str, Any]:
        """The full hand record (``cardtable.hand/2``), deck and hole cards included: floor only, journaled."""
        record = table.hand_record(hand)
        table.audit_hole_cards(role=role.value, client=_client(request), hand=hand, via="history")
        return record

    @app.get("/api/tables/{table_id}/history/{hand}/text", tags=["history"], response_class=Response,
             responses={200: {"content": {"text/plain": {}}, "description": "the hand as plain text"}})
    def hand_story(table: Table, role: FloorRole, hand: int, request: Request) -> PlainTextResponse:
        """The hand as a plain-text history, hole cards, halts, alerts and rulings included: floor only, journaled."""
        text = table.hand_story(hand)
        table.audit_hole_cards(role=role.value, client=_client(request), hand=hand, via="history")
        return PlainTextResponse(text)

    @app.get("/api/tables/{table_id}/alerts/{alert_id}/frame.jpg", tags=["floor"], response_class=Response)
    def alert_frame(table: Table, role: FloorRole, alert_id: str) -> Response:
        """The camera frame that raised a camera alert (JPEG), while it is kept."""
        return Response(content=table.alert_frame_jpeg(alert_id), media_type="image/jpeg",
                        headers={"Cache-Control": "no-store"})

    # Camera
    @app.get("/api/tables/{table_id}/camera/frame.jpg", tags=["camera"], response_class=Response)
    def camera_frame(table: Table, role: DealerRole) -> Response:
        """The latest camera frame with the detections drawn (JPEG)."""
        data = table.camera_frame_jpeg()
        if data is None:
            raise NotFoundError("no camera frame yet", code="no_frame")
        return Response(content=data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/tables/{table_id}/camera/detections", tags=["camera"])
    def camera_detections(table: Table, role: DealerRole) -> list[dict[str, Any]]:
        return table.camera_detections()

    # Streams
    counter = itertools.count(1)

    @app.websocket("/ws/tables/{table_id}/{view}")
    async def stream(websocket: WebSocket, table_id: str, view: str, token: str | None = None) -> None:
        registry: TableRegistry = websocket.app.state.registry
        table = registry.tables.get(table_id)
        offered = [p.strip() for p in websocket.headers.get("sec-websocket-protocol", "").split(",") if p.strip()]
        subprotocol = WS_PROTOCOL if WS_PROTOCOL in offered else None
        # A browser cannot set a header on a WebSocket but can offer subprotocols: the screens send their token
        # as "bearer.TOKEN" there, so it never sits in a URL (?token= still works for links and tools).
        token = next((p[len("bearer."):] for p in offered if p.startswith("bearer.")), token)
        try:
            role_view = Role(view)
        except ValueError:
            role_view = None
        held = registry.tokens.role_of(token)
        if table is None or role_view is None or not RoleTokens.may(held, role_view) or (token and held is Role.PUBLIC):
            # Accept, then close with a reason code the page can show ("token refused"): a refused
            # handshake reaches a browser only as an anonymous 1006.
            await websocket.accept(subprotocol=subprotocol)
            await websocket.close(code=4403 if table is not None and role_view is not None else 4404,
                                  reason="this stream needs a valid token for its role")
            return
        await websocket.accept(subprotocol=subprotocol)
        peer = websocket.client.host if websocket.client else "unknown"
        hub = registry.hubs[table_id]
        sub = hub.subscribe(role_view, f"ws#{next(counter)} {peer}")
        if not hub.subscribers(role_view) or sub.queue.empty():
            table.notify()
        receiver = asyncio.create_task(_listen(websocket))
        try:
            while True:
                getter = asyncio.create_task(sub.queue.get())
                done, _ = await asyncio.wait({getter, receiver}, return_when=asyncio.FIRST_COMPLETED)
                if receiver in done:
                    getter.cancel()
                    if receiver.result():
                        # The streams are read-only: input is refused (policy violation), never acted on.
                        LOG.warning("stream %s/%s: client %s sent input on a read-only stream; closing it",
                                    table_id, view, sub.client)
                        with contextlib.suppress(Exception):
                            await websocket.close(code=1008, reason="the streams take no input")
                    break
                await websocket.send_text(getter.result())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            receiver.cancel()
            hub.unsubscribe(sub)


async def _listen(websocket: WebSocket) -> bool:
    """Wait for the client to go away (False) or to send something (True): reading notices both."""
    try:
        message = await websocket.receive()
    except (WebSocketDisconnect, RuntimeError):
        return False
    return message.get("type") == "websocket.receive"


def _install_screens(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def start_page() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html")

    @app.get("/favicon.svg", include_in_schema=False)
    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(WEB_DIR / "favicon.svg", media_type="image/svg+xml")

    for screen in SCREENS:
        _screen_route(app, screen)


def _screen_route(app: FastAPI, screen: str) -> None:
    path = WEB_DIR / f"{screen}.html"

    async def page() -> FileResponse:
        return FileResponse(path)

    app.add_api_route(f"/{screen}", page, include_in_schema=False, methods=["GET"])
