"""npy_hostile.py DIR: writes the truncated and hostile .npy files of
npy_hostile.test.  Each header's length field counts exactly the header
bytes that follow, so the parser, not the length check, must find the
defect (except in short_len.npy, whose length field overstates it)."""
import os
import sys

V1 = b'\x93NUMPY\x01\x00'
GOOD = b"{'descr': '<f2', 'fortran_order': False, 'shape': (23,), }"


def v1(header):
    return V1 + bytes([len(header) & 0xff, len(header) >> 8]) + header


FILES = {
    # issue 19's reproducer: 17 bytes, the key's closing quote missing
    'short17': v1(b"{'descr"),
    'key_only': v1(b"{'descr'"),
    'no_value': v1(b"{'descr':"),
    'open_string': v1(b"{'descr': '<f2"),
    'bad_bool': v1(GOOD.replace(b'False', b'Fals')),
    'no_brace': v1(GOOD[:-3]),
    'dup_key': v1(GOOD.replace(b"'fortran_order': False", b"'descr': '<f2'")),
    'other_key': v1(GOOD.replace(b"'fortran_order'", b"'fortran_ordex'")),
    'nul': v1(GOOD.replace(b'(23,)', b'(2\x00,)')),
    'open_shape': v1(b"{'descr': '<f2', 'fortran_order': False, 'shape': (23"),
    'huge_dim': v1(GOOD.replace(b'(23,)', b'(99999999999999999999999,)')),
    'short_len': V1 + b'\x40\x00' + GOOD[:20],
    'magic_only': b'\x93NUMPY\x01',
    'version9': b'\x93NUMPY\x09\x00\x00\x00',
    # boundary: the same header whole, with its data, is read
    'whole': v1(GOOD + b' ' * (117 - len(GOOD)) + b'\n') + b'\x00\x3c' * 23,   # 23 f16 ones
}

assert len(FILES['short17']) == 17
for name, data in FILES.items():
    with open(os.path.join(sys.argv[1], name + '.npy'), 'wb') as f:
        f.write(data)
