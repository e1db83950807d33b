"""The HTTP + WebSocket server of web_bridge (aiohttp), on its own asyncio loop and thread.

One port serves the page's static files and the rosbridge WebSocket at `/ws`. Everything that
protects the arm from the network happens here, before any message reaches the ROS side:

- the `Host` check on every request (421 otherwise: DNS rebinding), the `Origin` check on the
  WebSocket handshake and on any request that has one (403 otherwise: another site's page in
  the user's browser);
- when a token is required (a network address, bridge/auth.py): no token or a wrong one 401,
  a peer past its wrong tries 429, each refusal logged with the peer's address (one line per
  peer and kind every few seconds, with the count); the right `?token=` on a page request
  sets the cookie and redirects to the same URL without it;
- at most `max_connections` WebSockets (the next one gets a `status` error and is closed with
  1013, "try again later");
- frames larger than `max_message_bytes` close that connection (1009, "message too big");
- a per-connection token bucket (`rate_limit_per_s`, `rate_limit_burst`): a message beyond it
  is dropped with a `status` error (one a second at most), never handed on;
- bad JSON, a non-object, a missing or unknown `op`, wrong field types, NaN/inf anywhere:
  a `status` error, the connection stays open;
- an exception in a handler is logged and answered with a `status` error; the server goes on.

Decoded requests go to a `Dispatcher` (the ROS side) on the loop thread; its methods must not
block. Sessions are the dispatcher's handle to one client.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from aiohttp import WSCloseCode, WSMsgType, web

from arm_kinematics.bridge import auth, protocol
from arm_kinematics.bridge.convert import ConversionError
from arm_kinematics.bridge.ratelimit import TokenBucket
from arm_kinematics.bridge.security import (
    BridgeSettings,
    allowed_hosts,
    host_allowed,
    lan_address,
    machine_addresses,
    origin_allowed,
    proxy_hosts,
)

WEBSOCKET_PATH = "/ws"
#: Topic messages waiting for a slow client beyond this many are dropped (answers never are).
MAX_QUEUED_TOPIC_MESSAGES = 256
_STATUS_EVERY_S = 1.0  # at most one rate-limit status a second per connection
_FLUSH_SLACK_S = 0.05  # a timer may fire a hair early; the held counts are then due


def call_soon_threadsafe(loop: asyncio.AbstractEventLoop, callback: Callable, *args: Any) -> None:
    """`loop.call_soon_threadsafe`, except that a loop already closed (the server stopped while
    a ROS callback was on its way) drops the call instead of raising in the ROS thread."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)


class Session:
    """One WebSocket client. `send` may be called from any thread."""

    def __init__(
        self,
        number: int,
        loop: asyncio.AbstractEventLoop,
        peer: str,
        ws: web.WebSocketResponse,
    ) -> None:
        """Created on the loop's thread."""
        self.number = number
        self.loop = loop
        self.ws = ws
        self._loop_thread_id = threading.get_ident()
        self.peer = peer
        self.state: dict[str, Any] = {}  # the dispatcher's per-client bookkeeping
        self.closed = False
        self._outbox: asyncio.Queue[tuple[str, bool]] = asyncio.Queue()
        self._queued_topic_messages = 0
        self.dropped_topic_messages = 0

    def send(self, message: dict[str, Any], droppable: bool = False) -> None:
        """Queue a server message (a dict); `droppable` for topic messages."""
        self.send_text(protocol.encode(message), droppable)

    def send_text(self, text: str, droppable: bool = False) -> None:
        if threading.get_ident() == self._loop_thread_id:
            self._enqueue(text, droppable)
        else:
            call_soon_threadsafe(self.loop, self._enqueue, text, droppable)

    def _enqueue(self, text: str, droppable: bool) -> None:
        if self.closed:
            return
        if droppable:
            if self._queued_topic_messages >= MAX_QUEUED_TOPIC_MESSAGES:
                self.dropped_topic_messages += 1
                return
            self._queued_topic_messages += 1
        self._outbox.put_nowait((text, droppable))

    async def write(self) -> None:
        """Send the outbox until the session closes (a task per session)."""
        while True:
            text, droppable = await self._outbox.get()
            if droppable:
                self._queued_topic_messages -= 1
            try:
                await self.ws.send_str(text)
            except ConnectionError:  # the client went away; the receive side ends the session
                return


class Dispatcher(Protocol):
    def dispatch(self, session: Session, request: protocol.Request) -> None: ...

    def disconnected(self, session: Session) -> None: ...


class BridgeServer:
    """Serves `web_root` and `/ws` on `settings.host:port` from a thread of its own.

    `token`: what every client must show when `settings.token_required` (bridge/auth.py).
    """

    def __init__(
        self,
        settings: BridgeSettings,
        web_root: Path | None,
        dispatcher: Dispatcher,
        logger: logging.Logger | Any,
        token: str | None = None,
    ) -> None:
        if settings.token_required and not token:
            raise ValueError("a token is required on this bind, and none was given")
        self.settings = settings
        self.token = token if settings.token_required else None
        self.web_root = web_root
        self.dispatcher = dispatcher
        self.logger = logger
        family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        host = "127.0.0.1" if settings.host == "localhost" else settings.host
        try:
            self._socket.bind((host, settings.port))  # OSError: address in use, not ours
        except OSError:
            self._socket.close()
            raise
        self._socket.listen(128)
        self.port: int = self._socket.getsockname()[1]
        local = () if settings.loopback else machine_addresses()
        self.hosts = allowed_hosts(host, self.port, settings.allowed_hosts, local)
        self.tls_hosts = proxy_hosts(settings.allowed_hosts, self.port)
        address = lan_address(host, local)
        shown = f"[{address}]" if ":" in address else address
        #: The page's URL: the bound address, or for 0.0.0.0 the machine's LAN address.
        self.url = f"http://{shown}:{self.port}/"
        self.cookie = auth.cookie_name(self.port)
        self._wrong_tokens = auth.WrongTokenLimiter()
        self._refusals = auth.RefusalLog()
        self._refusal_flush: asyncio.TimerHandle | None = None
        self.sessions: dict[int, Session] = {}
        self._numbers = itertools.count(1)
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._run, name="web_bridge", daemon=True)
        self._started = threading.Event()
        self._start_error: BaseException | None = None

    # --- life cycle ----------------------------------------------------------------------------

    def start(self, timeout_s: float = 10.0) -> None:
        self._thread.start()
        if not self._started.wait(timeout_s):
            raise RuntimeError("web_bridge: the server did not start")
        if self._start_error is not None:
            raise self._start_error

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve())
        except BaseException as error:  # reported to start()
            self._start_error = error
            self._started.set()
            return
        self._started.set()
        self._loop.run_forever()
        self._loop.close()

    async def _serve(self) -> None:
        app = web.Application(middlewares=[self._check_request], client_max_size=1024**2)
        app.router.add_get(WEBSOCKET_PATH, self._websocket)
        app.router.add_get("/", self._index)
        if self.web_root is not None:
            # colcon's --symlink-install (scripts/setup.sh) installs the page's files as
            # symlinks into build/: follow them. aiohttp still refuses a URL path that leaves
            # web_root ('..', encoded or not): it checks the normalised path before resolving.
            app.router.add_static("/", self.web_root, follow_symlinks=True)
        app.on_response_prepare.append(_security_headers)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await self._runner.setup()
        await web.SockSite(self._runner, self._socket).start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Close every WebSocket (1001, going away), stop serving and end the thread."""
        if not self._thread.is_alive():
            self._socket.close()
            return
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        try:
            future.result(timeout_s)
        except Exception as error:  # stopping must go on
            self.logger.warning(f"web_bridge: stopping the server: {error!r}")
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout_s)

    async def _shutdown(self) -> None:
        for session in list(self.sessions.values()):
            await session.ws.close(code=WSCloseCode.GOING_AWAY, message=b"web_bridge stopping")
        if self._runner is not None:
            await self._runner.cleanup()
        # What is still waiting (a goal's result, a call's answer, a writer) ends here, on a
        # running loop: a task left pending when the loop closes is reported by asyncio as
        # "Task was destroyed but it is pending!" (Ctrl-C during a move from the page).
        pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if self._refusal_flush is not None:
            self._refusal_flush.cancel()

    # --- HTTP ----------------------------------------------------------------------------------

    @web.middleware
    async def _check_request(self, request: web.Request, handler: Callable) -> web.StreamResponse:
        """Host, then Origin, then the token (when required), before any route."""
        peer = str(request.remote)
        host = request.headers.get("Host")
        if not host_allowed(host, self.hosts):
            self._log_refusal(peer, "an unknown Host", f"Host {host!r}")
            return web.Response(status=421, text="421 Misdirected Request: unknown Host\n")
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, self.hosts, self.tls_hosts):
            self._log_refusal(peer, "a foreign Origin", f"{origin!r}, {request.path}")
            return web.Response(status=403, text="403 Forbidden: cross-origin request\n")
        if self.token is not None:
            refusal = self._refuse_without_token(request)
            if refusal is not None:
                return refusal
            if request.path != WEBSOCKET_PATH and auth.TOKEN_QUERY in request.rel_url.query:
                return self._set_cookie_and_redirect(request)
        return await handler(request)

    def _refuse_without_token(self, request: web.Request) -> web.Response | None:
        """None if the request shows the right token; else the 401 or 429 answer (logged)."""
        peer = str(request.remote)
        presented = auth.presented_token(
            request.headers, request.rel_url.query, request.cookies, self.cookie
        )
        if presented is None:
            self._log_refusal(peer, "no token")
            return web.Response(
                status=401,
                headers={"WWW-Authenticate": "Bearer"},
                text="401 Unauthorized: this web_bridge needs its token. Open the URL with "
                "?token=... that it printed at start-up; programs send the header "
                "'Authorization: Bearer <token>'.\n",
            )
        if not self._wrong_tokens.may_try(peer):
            self._log_refusal(peer, "a token after too many wrong ones (429)")
            retry_s = round(1.0 / auth.WRONG_TOKEN_RATE_PER_S)
            return web.Response(
                status=429,
                headers={"Retry-After": str(retry_s)},
                text="429 Too Many Requests: too many wrong tokens from this address\n",
            )
        if not auth.token_matches(presented, self.token):
            self._wrong_tokens.wrong(peer)
            self._log_refusal(peer, "a wrong token")
            return web.Response(
                status=401,
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
                text="401 Unauthorized: wrong token\n",
            )
        return None

    def _set_cookie_and_redirect(self, request: web.Request) -> web.Response:
        """The first load with `?token=`: the cookie, then the same URL without the token."""
        response = web.HTTPSeeOther(
            location=str(request.rel_url.without_query_params(auth.TOKEN_QUERY))
        )
        response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
        response.headers["Cache-Control"] = "no-store"
        return response

    def _log_refusal(self, peer: str, what: str, detail: str = "") -> None:
        """Log a refusal now, or count it for the next line about this peer and kind."""
        line = self._refusals.note(peer, what)
        if line is not None:
            self.logger.warning(f"web_bridge: {line}" + (f" ({detail})" if detail else ""))
        if self._refusal_flush is None:
            self._refusal_flush = self._loop.call_later(
                self._refusals.interval_s + _FLUSH_SLACK_S, self._flush_refusals
            )

    def _flush_refusals(self) -> None:
        """The counts held back in the last interval, then again while refusals go on."""
        self._refusal_flush = None
        lines = self._refusals.flush()
        for line in lines:
            self.logger.warning(f"web_bridge: {line}")
        if self._refusals.holding():
            self._refusal_flush = self._loop.call_later(
                self._refusals.interval_s + _FLUSH_SLACK_S, self._flush_refusals
            )

    async def _index(self, request: web.Request) -> web.StreamResponse:
        index = None if self.web_root is None else self.web_root / "index.html"
        if index is None or not index.is_file():
            return web.Response(status=404, text="web_bridge: no page installed\n")
        return web.FileResponse(index)

    # --- WebSocket -----------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        # Host, Origin and the token are checked by _check_request.
        ws = web.WebSocketResponse(
            max_msg_size=self.settings.max_message_bytes, heartbeat=None, compress=False
        )
        await ws.prepare(request)
        if len(self.sessions) >= self.settings.max_connections:
            await ws.send_str(
                protocol.encode(
                    protocol.status(
                        "error",
                        f"too many connections (at most {self.settings.max_connections})",
                    )
                )
            )
            await ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"too many connections")
            return ws
        session = Session(next(self._numbers), self._loop, str(request.remote), ws)
        self.sessions[session.number] = session
        writer = asyncio.create_task(session.write())
        try:
            await self._receive(session, ws)
        finally:
            session.closed = True
            del self.sessions[session.number]
            writer.cancel()
            try:
                self.dispatcher.disconnected(session)
            except Exception as error:
                self.logger.error(f"web_bridge: cleaning up a closed connection: {error!r}")
        return ws

    async def _receive(self, session: Session, ws: web.WebSocketResponse) -> None:
        bucket = TokenBucket(self.settings.rate_limit_per_s, self.settings.rate_limit_burst)
        last_status = -_STATUS_EVERY_S
        async for frame in ws:
            if frame.type == WSMsgType.ERROR:
                break
            if not bucket.take():
                now = time.monotonic()
                if now - last_status >= _STATUS_EVERY_S:
                    last_status = now
                    session.send(
                        protocol.status(
                            "error",
                            f"rate limit exceeded (more than {self.settings.rate_limit_per_s:g} "
                            "messages/s): messages dropped",
                        )
                    )
                continue
            if frame.type != WSMsgType.TEXT:
                session.send(protocol.status("error", "only JSON text messages are supported"))
                continue
            self._handle_text(session, frame.data)
        if ws.close_code == WSCloseCode.MESSAGE_TOO_BIG:
            self.logger.warning(
                f"web_bridge: closed connection {session.number} ({session.peer}): a message "
                f"over {self.settings.max_message_bytes} bytes"
            )

    def _handle_text(self, session: Session, text: str) -> None:
        message = None
        try:
            message = protocol.decode(text)
            self.dispatcher.dispatch(session, protocol.parse_request(message))
        except protocol.ProtocolError as error:
            self._refuse(session, message or error.request, str(error), error.message_id)
        except ConversionError as error:
            self._refuse(session, message, str(error), message.get("id"))
        except Exception as error:  # a bug in a handler must not stop the other clients
            self.logger.error(f"web_bridge: handling a message failed: {error!r}")
            message_id = message.get("id") if message else None
            self._refuse(session, message, f"internal error: {error}", message_id)

    @staticmethod
    def _refuse(session: Session, message: dict | None, text: str, message_id: Any) -> None:
        for answer in protocol.refusal(message, text, message_id):
            session.send(answer)


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    # The first load's URL carries the token: never hand it on to another site.
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("Cache-Control", "no-cache")
