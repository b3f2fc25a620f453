"""One open port and its reader thread, and what the driver learns from the line.

``Link.send`` writes a frame; the reader thread decodes replies and routes each to the inbox of
its sequence number. What is not a reply to one frame (a NAK, the robot's reset announcement, a
garbled line, the loss of the port) reaches every open inbox as well, as a Frame or a LinkFault.
"""
from __future__ import annotations

import contextlib
import enum
import queue
import threading
from typing import Iterator, Protocol

import serial

from controller.protocol import HELLO, NAK, Frame, FrameError, LineSplitter, decode_frame

READ_POLL_S = 0.05     # the port's read timeout: how quickly the reader thread notices close()


class LinkFault(enum.Enum):
    """What went wrong on the line: the kind of every fault the driver recovers from.

    GARBLED, ROBOT_RESET and LINK_LOST are also the inbox items the reader thread broadcasts;
    SILENCE is what an inbox that stays empty means.
    """
    SILENCE = "silence"          # no reply within reply_timeout_s
    GARBLED = "garbled"          # a NAK, or a line that is not a valid frame
    LINK_LOST = "link lost"      # the port failed
    ROBOT_RESET = "robot reset"  # the robot announced itself (``0 HELLO``) after a reset


class FrameSink(Protocol):
    """Where the driver records the line (``hil.recording.FrameLog`` is one). Called from
    the driver's thread and the reader thread."""

    def frame(self, direction: str, line: bytes, error: str | None = None) -> None:
        """A frame sent (direction "tx") or received ("rx"); ``error`` says why a received line
        is not a valid frame."""

    def event(self, text: str) -> None:
        """A link event (the port opened or lost)."""


class LinkLost(Exception):
    """The port failed under the link. Internal to the driver: it reconnects, or raises an
    ActuatorError."""


class Link:
    """One open port ``ser`` (opened with timeout=READ_POLL_S), read by a thread from construction
    to ``close()``. Every frame, both ways, and the loss of the port go to ``sink`` if given.

    ``dead``: the error that lost the port, else None. ``reset_seen``: set when the robot announces
    a reset; the driver clears it when it handshakes again.
    """

    def __init__(self, ser: serial.SerialBase, sink: FrameSink | None):
        self._ser = ser
        self._sink = sink
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._inboxes: dict[int, queue.Queue] = {}
        self.dead: BaseException | None = None
        self.reset_seen = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read_loop, name="actuator-reader", daemon=True)
        self._thread.start()

    @contextlib.contextmanager
    def inbox(self, seq: int) -> Iterator[queue.Queue]:
        """The queue receiving the replies to ``seq`` (Frame) and the broadcasts (Frame, LinkFault)
        while the block runs; LINK_LOST is in it from the start if the port is already lost."""
        q: queue.Queue = queue.Queue()
        with self._lock:
            self._inboxes[seq] = q
            if self.dead is not None:
                q.put(LinkFault.LINK_LOST)
        try:
            yield q
        finally:
            with self._lock:
                self._inboxes.pop(seq, None)

    def send(self, data: bytes) -> None:
        """Write ``data`` (logged first, so a reply is never logged before it). Raises LinkLost if
        the port is lost, serial.SerialTimeoutException if the robot is not reading."""
        if self.dead is not None:
            raise LinkLost(str(self.dead))
        try:
            with self._write_lock:
                if self._sink and data.strip():
                    self._sink.frame("tx", data)
                self._ser.write(data)
        except serial.SerialTimeoutException:
            raise  # the robot is not reading: the caller treats it like silence
        except (serial.SerialException, OSError) as e:
            self._die(e)
            raise LinkLost(str(e)) from e

    def _read_loop(self) -> None:
        splitter = LineSplitter()
        while not self._stop.is_set():
            try:
                data = self._ser.read(max(1, self._ser.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                if not self._stop.is_set():
                    self._die(e)
                return
            for line in splitter.feed(data):
                self._route(line)

    def _route(self, line: bytes) -> None:
        if not line.strip(b"\r"):
            return
        try:
            f = decode_frame(line)
        except FrameError as e:
            if self._sink:
                self._sink.frame("rx", line, error=str(e))
            self._broadcast(LinkFault.GARBLED)
            return
        if self._sink:
            self._sink.frame("rx", line)
        if f.seq == 0:
            if f.verb == HELLO:
                self.reset_seen = True
                self._broadcast(LinkFault.ROBOT_RESET)
            elif f.verb == NAK:
                self._broadcast(f)
            return
        with self._lock:
            q = self._inboxes.get(f.seq)
        if q is not None:
            q.put(f)

    def _broadcast(self, item: Frame | LinkFault) -> None:
        with self._lock:
            for q in self._inboxes.values():
                q.put(item)

    def _die(self, e: BaseException) -> None:
        if self.dead is None:
            self.dead = e
            if self._sink:
                self._sink.event(f"link lost: {e}")
        self._broadcast(LinkFault.LINK_LOST)

    def close(self) -> None:
        """Stop the reader thread and close the port. Safe to call twice."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        with contextlib.suppress(Exception):
            self._ser.close()
