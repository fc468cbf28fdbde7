"""Numba kernel for protobuf packed varints (imported lazily by ``_example_wire``)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def decode_varints(data, out):
    """Decode packed varints from uint8 ``data`` into int64 ``out``; returns the count, or
    -1 for a truncated last varint, -2 for a varint longer than 10 bytes."""
    n = data.shape[0]
    count = 0
    value = np.uint64(0)
    shift = 0
    for i in range(n):
        b = data[i]
        value |= np.uint64(b & 0x7F) << np.uint64(shift)
        if b < 0x80:
            out[count] = np.int64(value)
            count += 1
            value = np.uint64(0)
            shift = 0
        else:
            shift += 7
            if shift >= 70:
                return -2
    if shift != 0:
        return -1
    return count


@numba.njit(cache=True, nogil=True)
def _varint(buf, pos, end):
    """(value, next position); next position -1 when truncated or too long."""
    result = np.uint64(0)
    shift = 0
    while pos < end:
        b = buf[pos]
        pos += 1
        result |= np.uint64(b & 0x7F) << np.uint64(shift)
        if b < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            return result, -1
    return result, -1


@numba.njit(cache=True, nogil=True)
def _length(buf, pos, end):
    """A length prefix at ``pos``: (length as int64, position after it); the position is -1
    when the varint is truncated or too long, or the length runs past ``end`` (compared as
    uint64, so a length of 2**63 or more cannot turn negative and move backwards)."""
    value, pos = _varint(buf, pos, end)
    if pos < 0 or value > np.uint64(end - pos):
        return np.int64(0), -1
    return np.int64(value), pos


@numba.njit(cache=True, nogil=True)
def scan_examples(buf, starts, ends, table):
    """Index canonical serialized Examples (as standard writers emit them).

    For record ``r`` in ``buf[starts[r]:ends[r]]`` every feature becomes one row of ``table``:
    ``(r, key_start, key_end, kind, payload_start, payload_end)`` with kind 0 (no list),
    1 (bytes: payload = the BytesList body), 2 (floats: packed bytes), 3 (int64: packed
    varints). Returns the number of rows, or ``-(r + 1)`` for the first record ``r`` that is
    not in canonical form (unknown fields, unpacked lists, ...): the caller then uses the
    general decoder, which also produces the precise error for malformed bytes. Returns
    ``-(len(starts) + 1)`` when ``table`` is too small.
    """
    n = 0
    cap = table.shape[0]
    for r in range(starts.shape[0]):
        pos = starts[r]
        end = ends[r]
        while pos < end:
            if buf[pos] != 0x0A:
                return -(r + 1)
            length, pos = _length(buf, pos + 1, end)
            if pos < 0 or pos + np.int64(length) > end:
                return -(r + 1)
            fend = pos + np.int64(length)
            while pos < fend:
                if buf[pos] != 0x0A:
                    return -(r + 1)
                length, pos = _length(buf, pos + 1, fend)
                if pos < 0 or pos + np.int64(length) > fend:
                    return -(r + 1)
                eend = pos + np.int64(length)
                if pos >= eend or buf[pos] != 0x0A:
                    return -(r + 1)
                length, pos = _length(buf, pos + 1, eend)
                if pos < 0 or pos + np.int64(length) > eend:
                    return -(r + 1)
                ks = pos
                ke = pos + np.int64(length)
                pos = ke
                if pos >= eend or buf[pos] != 0x12:
                    return -(r + 1)
                length, pos = _length(buf, pos + 1, eend)
                if pos < 0 or pos + np.int64(length) != eend:
                    return -(r + 1)
                kind = 0
                ps = pos
                pe = pos
                if pos < eend:
                    tag = buf[pos]
                    if tag != 0x0A and tag != 0x12 and tag != 0x1A:
                        return -(r + 1)
                    kind = tag >> 3
                    length, p = _length(buf, pos + 1, eend)
                    if p < 0 or p + np.int64(length) != eend:
                        return -(r + 1)
                    ps = p
                    pe = eend
                    if kind != 1 and p < eend:
                        if buf[p] != 0x0A:
                            return -(r + 1)
                        length, p = _length(buf, p + 1, eend)
                        if p < 0 or p + np.int64(length) != eend:
                            return -(r + 1)
                        ps = p
                if n >= cap:
                    return -(starts.shape[0] + 1)  # table full: caller retries bigger
                table[n, 0] = r
                table[n, 1] = ks
                table[n, 2] = ke
                table[n, 3] = kind
                table[n, 4] = ps
                table[n, 5] = pe
                n += 1
                pos = eend
    return n


@numba.njit(cache=True, nogil=True)
def decode_varint_ranges(buf, ps, pe, out, counts):
    """Packed varints of every range ``buf[ps[i]:pe[i]]`` into ``out`` (int64), counts per
    range into ``counts``; returns the total, -1 truncated, -2 too long."""
    total = 0
    for i in range(ps.shape[0]):
        c = 0
        value = np.uint64(0)
        shift = 0
        for j in range(ps[i], pe[i]):
            b = buf[j]
            value |= np.uint64(b & 0x7F) << np.uint64(shift)
            if b < 0x80:
                out[total] = np.int64(value)
                total += 1
                c += 1
                value = np.uint64(0)
                shift = 0
            else:
                shift += 7
                if shift >= 70:
                    return -2
        if shift != 0:
            return -1
        counts[i] = c
    return total


@numba.njit(cache=True, nogil=True)
def gather_ranges(buf, ps, pe, out):
    """Concatenate the byte ranges ``buf[ps[i]:pe[i]]`` into ``out``."""
    k = 0
    for i in range(ps.shape[0]):
        for j in range(ps[i], pe[i]):
            out[k] = buf[j]
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def split_bytes_lists(buf, ps, pe, item_starts, item_ends, counts):
    """Items of every BytesList body ``buf[ps[i]:pe[i]]`` (a run of ``0x0a len bytes``);
    returns the item total, or -1 when a body is not in that form."""
    k = 0
    for i in range(ps.shape[0]):
        pos = ps[i]
        end = pe[i]
        c = 0
        while pos < end:
            if buf[pos] != 0x0A:
                return -1
            length, pos = _length(buf, pos + 1, end)
            if pos < 0 or pos + np.int64(length) > end:
                return -1
            item_starts[k] = pos
            item_ends[k] = pos + np.int64(length)
            pos = pos + np.int64(length)
            k += 1
            c += 1
        counts[i] = c
    return k
