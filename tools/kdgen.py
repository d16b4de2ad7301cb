#!/usr/bin/env python3
"""kdgen: random valid kdsl kernels for differential testing of the passes.

  kdgen.py TARGET SEED COUNT > FILE.k     COUNT kernels for one target

Every kernel reads `src` (and `pred`), writes `dst`, and initialises its
on-chip buffers before reading them, so its output depends only on its
inputs.  The ascend kernels mix data_moves of every shape (straight-line
runs that line up or almost do, loops and nested loops with affine
addresses, ub->ub moves in one buffer, vec_dup in between); the neuron
ones loads, stores, copies, nc_stream_shuffle (identity, in place,
chained), tensor_copy_predicated (constant or tile predicates), loops and
mod_alloc blocks; the aipu ones permutations (vrevs, vshfl, vsel, vzip,
vconcat/vsplit) over vloads and vstores in loops.  Deterministic in SEED."""
import random
import sys


class Ascend:
    DT = {'f16': 2, 'f32': 4, 'i32': 4, 'u8': 1, 'i16': 2}
    SRC, UB, W, T = 8192, 4096, 1024, 2048      # bytes

    def __init__(self, rng):
        self.r = rng

    def move(self, dst, dbytes, dgm, src, sbytes, sgm, esz, loop=None):
        """A legal data_move of random shape, or None."""
        r = self.r
        for _ in range(40):
            nb = r.choice([1, 1, 1, 2, 3, 4, 8])
            bl = r.choice([1, 1, 2, 3, 4])
            ss = r.choice([0, 0, 0, 1, 2]) if nb > 1 else 0
            ds = r.choice([0, 0, 0, 1, 3]) if nb > 1 else 0
            sext = ((nb - 1) * (bl + ss) + bl) * 32
            dext = ((nb - 1) * (bl + ds) + bl) * 32
            trips, sstep, dstep = 1, 0, 0
            if loop:
                trips = loop
                per_s = nb * (bl + ss) * 32
                per_d = nb * (bl + ds) * 32
                sstep = r.choice([per_s, per_s, per_s + 32, per_s * 2, per_s + (0 if sgm else 32)])
                dstep = r.choice([per_d, per_d, per_d + 32, per_d * 2])
                if not sgm:
                    sstep -= sstep % 32
                if not dgm:
                    dstep -= dstep % 32
                if sstep < 0 or dstep < 0:
                    continue
            sroom = sbytes - sext - sstep * (trips - 1)
            droom = dbytes - dext - dstep * (trips - 1)
            if sroom < 0 or droom < 0:
                continue
            so = r.randrange(0, sroom + 1, 1 if sgm else 32) // esz * esz
            do = r.randrange(0, droom + 1, 1 if dgm else 32) // esz * esz
            if not sgm:
                so -= so % 32
            if not dgm:
                do -= do % 32
            if src == dst and loop is None and not (so + sext <= do or do + dext <= so) and r.random() < 0.5:
                pass   # overlapping ub->ub moves are legal: keep some
            sidx = '%d' % (so // esz) if not loop else 'i*%d + %d' % (sstep // esz, so // esz)
            didx = '%d' % (do // esz) if not loop else 'i*%d + %d' % (dstep // esz, do // esz)
            if src == dst and loop:
                # trips of one buffer: stay clear of each other's bytes
                if not (so + sext + sstep * (trips - 1) <= do or do + dext + dstep * (trips - 1) <= so):
                    continue
            return 'data_move(%s[%s], %s[%s], 0, %d, %d, %d, %d);' % (dst, didx, src, sidx, nb, bl, ss, ds)
        return None

    def stage(self, body, esz, vec):
        """A move into the staging buffer t and a move out of it, the two
        often composing into one direct move (pass forward), sometimes
        with an op between or a second read of t."""
        r = self.r
        nb1 = r.choice([1, 1, 2, 3, 4])
        bl1 = r.choice([1, 2, 3])
        ss1 = r.choice([0, 0, 1, 2]) if nb1 > 1 else 0
        ds1 = r.choice([0, 0, 1]) if nb1 > 1 else 0
        text = ((nb1 - 1) * (bl1 + ds1) + bl1) * 32
        sname, sbytes, sgm = r.choice([('src', self.SRC, True), ('u', self.UB, False), ('w', self.W, False)])
        sext = ((nb1 - 1) * (bl1 + ss1) + bl1) * 32
        if text > self.T or sext > sbytes:
            return
        # a staging buffer of its own, set from src first: read only here
        t = 't%d' % len(self.stages)
        self.stages.append('let %s: ub %s[%d];' % (t, self.dt, self.T // esz))
        body.append('data_move(%s, src[%d], 0, 1, %d, 0, 0);' % (t, r.randrange(0, 64) * 32 // esz, self.T // 32))
        to = r.randrange(0, self.T - text + 1, 32)
        so = r.randrange(0, sbytes - sext + 1, 1 if sgm else 32) // esz * esz
        if not sgm:
            so -= so % 32
        body.append('data_move(%s[%d], %s[%d], 0, %d, %d, %d, %d);'
                    % (t, to // esz, sname, so // esz, nb1, bl1, ss1, ds1))
        if r.random() < 0.5:
            nb2, bl2, ss2, off = nb1, bl1, ds1, 0
        else:
            nb2 = r.choice([1, 2, 3])
            bl2 = r.choice([1, 2])
            ss2 = r.choice([0, 1, 2]) if nb2 > 1 else 0
            off = r.randrange(0, text, 32)
        ds2 = r.choice([0, 0, 1]) if nb2 > 1 else 0
        ext2 = ((nb2 - 1) * (bl2 + ss2) + bl2) * 32
        if to + off + ext2 > self.T:
            off = 0
        if to + off + ext2 > self.T:
            return
        yname, ybytes, ygm = r.choice([('u', self.UB, False), ('w', self.W, False), ('u', self.UB, False),
                                       ('dst', self.UB + self.W, True)])
        dext = ((nb2 - 1) * (bl2 + ds2) + bl2) * 32
        if dext > ybytes:
            return
        do = r.randrange(0, ybytes - dext + 1, 1 if ygm else 32) // esz * esz
        if not ygm:
            do -= do % 32
        k = r.random()
        if k < 0.1 and vec and sname != 'src':
            body.append('vec_dup(%d, %s, 7, 1, 8);' % (256 // esz, sname))
        elif k < 0.2 and vec and yname != 'dst':
            body.append('vec_dup(%d, %s, 5, 1, 8);' % (256 // esz, yname))
        elif k < 0.25:
            body.append('data_move(%s, src, 0, 1, 2, 0, 0);' % t)
        if sgm and ygm:
            return      # gm -> ub -> gm is legal, gm -> gm is not: keep the pair
        body.append('data_move(%s[%d], %s[%d], 0, %d, %d, %d, %d);'
                    % (yname, do // esz, t, (to + off) // esz, nb2, bl2, ss2, ds2))
        if r.random() < 0.1:
            body.append('data_move(w, %s, 0, 1, %d, 0, 0);' % (t, self.W // 32))

    def kernel(self, name):
        r = self.r
        dt = r.choice(list(self.DT))
        esz = self.DT[dt]
        vec = dt in ('f16', 'f32', 'i32', 'i16')
        ub, w = self.UB // esz, self.W // esz
        self.dt, self.stages = dt, []
        body = ['data_move(u, src, 0, 1, %d, 0, 0);' % (self.UB // 32),
                'data_move(w, src[%d], 0, 1, %d, 0, 0);' % (ub, self.W // 32)]
        for _ in range(r.randint(2, 7)):
            k = r.random()
            if k < 0.25:
                self.stage(body, esz, vec)
                continue
            k = r.random()
            bufs = [('u', self.UB, False), ('w', self.W, False)]
            d = r.choice(bufs)
            if k < 0.3:
                run = r.randint(2, 4)
                # a run of moves that line up: contiguous or evenly stepped
                bl, gap_s, gap_d = r.choice([1, 2]), r.choice([0, 0, 1]), r.choice([0, 0, 2])
                so = r.randrange(0, 512) // esz * esz
                do = r.randrange(0, 512, 32)
                for j in range(run):
                    s_at = so + j * (bl + gap_s) * 32
                    d_at = do + j * (bl + gap_d) * 32
                    if d_at + bl * 32 <= d[1] and s_at + bl * 32 <= self.SRC:
                        body.append('data_move(%s[%d], src[%d], 0, 1, %d, 0, 0);'
                                    % (d[0], d_at // esz, s_at // esz, bl))
                    if r.random() < 0.2 and vec:
                        body.append('vec_dup(%d, w, %d, 1, 8);' % (256 // esz // 2, r.randint(0, 9)))
            elif k < 0.6:
                n = r.randint(1, 9)
                m = self.move(d[0], d[1], False, 'src', self.SRC, True, esz, loop=n)
                if m:
                    body.append('for i in 0..%d { %s }' % (n, m))
            elif k < 0.7:
                n1, n2 = r.randint(1, 4), r.randint(1, 4)
                per = r.choice([1, 2])
                if n1 * n2 * per * 32 * 2 <= self.UB:
                    body.append('for i in 0..%d { for j in 0..%d { data_move(u[i*%d + j*%d], src[i*%d + j*%d + %d], 0, 1, %d, 0, 0); } }'
                                % (n1, n2, n2 * per * 64 // esz, per * 32 // esz, n2 * per * 128 // esz,
                                   per * 64 // esz, r.randrange(0, 64) // esz, per))
            elif k < 0.85:
                s = r.choice(bufs)
                m = self.move(d[0], d[1], False, s[0], s[1], False, esz)
                if m:
                    body.append(m)
            elif vec:
                body.append('vec_dup(%d, %s, %d, %d, 8);' % (256 // esz, d[0], r.randint(0, 9),
                                                            r.randint(1, d[1] // 256)))
            else:
                m = self.move(d[0], d[1], False, 'src', self.SRC, True, esz)
                if m:
                    body.append(m)
        body.append('data_move(dst, u, 0, 1, %d, 0, 0);' % (self.UB // 32))
        body.append('data_move(dst[%d], w, 0, 1, %d, 0, 0);' % (ub, self.W // 32))
        body = ['let u: ub %s[%d];' % (dt, ub), 'let w: ub %s[%d];' % (dt, w)] + self.stages + body
        return ('kernel %s(src: gm %s[%d], dst: gm %s[%d]) {\n    %s\n}\n'
                % (name, dt, self.SRC // esz, dt, ub + w, '\n    '.join(body)))


class Neuron:
    def __init__(self, rng):
        self.r = rng

    def mask(self):
        r = self.r
        k = r.random()
        if k < 0.25:
            return list(range(32))
        if k < 0.4:
            return [255] * 32
        m = list(range(32))
        r.shuffle(m)
        return [255 if r.random() < 0.1 else x for x in m]

    def rect(self, F):
        """A random [partitions, free] rectangle: (p0, np, f0, nf)."""
        r = self.r
        n = r.choice([32, 64, 128])
        nf = r.randint(1, F)
        return (r.randrange(0, 128 - n + 1, 32), n, r.randrange(0, F - nf + 1), nf)

    def stage(self, body, F):
        """A copy or load into the staging tile t (or the i32 tile q) and a
        copy or store out of it, often composing into one direct op (pass
        forward); sometimes an op between, a part of t the first did not
        write, or a second read."""
        r = self.r
        if r.random() < 0.25:
            t = 'q'
        else:
            # a staging tile of its own, zeroed first: read only here
            t = 't%d' % len(self.stages)
            self.stages.append('let %s: sbuf f32[128, %d]%s;' % (t, F, self.alloc(F * (24 + 4 * len(self.stages)))))
            body.append('memset(%s, 0);' % t)
        p0, n, f0, nf = self.rect(F)
        q0, g0 = r.randrange(0, 128 - n + 1, 32), r.randrange(0, F - nf + 1)
        v = lambda b, p, f, pn, fn: '%s[%d:%d, %d:%d]' % (b, p, p + pn, f, f + fn)
        if r.random() < 0.3:
            body.append('load(%s, %s);' % (v(t, q0, g0, n, nf), v('src', p0, f0, n, nf))
                        if t != 'q' else 'memset(q, 1);')
        else:
            body.append('tensor_copy(%s, %s);' % (v(t, q0, g0, n, nf), v(r.choice('ab'), p0, f0, n, nf)))
        # op2 reads a part of what op1 wrote, or (sometimes) more
        if r.random() < 0.15:
            m, mf, dp, df = n, F, 0, -g0
        else:
            m = r.choice([c for c in (32, 64, 128) if c <= n])
            mf = r.randint(1, nf)
            dp = r.randrange(0, n - m + 1, 32)
            df = r.randrange(0, nf - mf + 1)
        k = r.random()
        if k < 0.1:
            body.append('memset(%s, 4);' % r.choice('ab'))
        elif k < 0.15:
            body.append('memset(%s[0:32, 0:1], 6);' % t)
        y0, h0 = r.randrange(0, 128 - m + 1, 32), r.randrange(0, F - mf + 1)
        src = v(t, q0 + dp, g0 + df, m, mf)
        if r.random() < 0.25 and t != 'q':
            body.append('store(%s, %s);' % (v('dst', y0, h0, m, mf), src))
        else:
            body.append('tensor_copy(%s, %s);' % (v(r.choice('ab'), y0, h0, m, mf), src))
        if r.random() < 0.1:
            body.append('tensor_copy(c, %s);' % t)

    def loop(self, body, F):
        """A loop of loads, stores (to dst2) or copies over adjacent free or
        partition ranges (fuse-tiles), sometimes with a gap, nested."""
        r = self.r
        d, s = r.choice([('b', 'a'), ('a', 'b'), ('a', 'src'), ('b', 'src'), ('dst2', 'a'), ('dst2', 'b'),
                         ('a', 'a')])
        op = 'load' if s == 'src' else 'store' if d == 'dst2' else 'tensor_copy'
        gap = 1 if r.random() < 0.15 else 0
        k = r.random()
        if k < 0.45:
            c = r.choice([1, 2, 4])
            n = r.randint(1, (F - gap) // (c + gap))
            o1, o2 = r.randrange(0, F - n * (c + gap) + 1), r.randrange(0, F - n * (c + gap) + 1)
            if d == s:
                # a copy within one buffer: the trips' ranges apart
                if F < 2 * n * (c + gap):
                    return
                o1, o2 = 0, n * (c + gap)
            body.append('for i in 0..%d { %s(%s[:, i*%d + %d:i*%d + %d], %s[:, i*%d + %d:i*%d + %d]); }'
                        % (n, op, d, c + gap, o1, c + gap, o1 + c, s, c + gap, o2, c + gap, o2 + c))
        elif k < 0.8:
            c = r.choice([16, 32, 64])
            n = r.randint(1, 128 // (c + 16 * gap))
            st = c + 16 * gap
            nf = r.randint(1, F)
            f0 = r.randrange(0, F - nf + 1)
            if d == s:
                return
            body.append('for i in 0..%d { %s(%s[i*%d:i*%d + %d, %d:%d], %s[i*%d:i*%d + %d, %d:%d]); }'
                        % (n, op, d, st, st, c, f0, f0 + nf, s, st, st, c, f0, f0 + nf))
        else:
            if d == s:
                return
            h = F // 2
            body.append('for i in 0..2 { for j in 0..2 { %s(%s[i*64:(i+1)*64, j*%d:(j+1)*%d], '
                        '%s[i*64:(i+1)*64, j*%d:(j+1)*%d]); } }' % (op, d, h, h, s, h, h))

    def kernel(self, name):
        r = self.r
        F = r.choice([8, 16])
        direct = r.random() < 0.3
        alloc = (lambda addr: ' = mod_alloc(base_addr=%d)' % addr) if direct else (lambda addr: '')
        body = ['let a: sbuf f32[128, %d]%s;' % (F, alloc(0)),
                'let b: sbuf f32[128, %d]%s;' % (F, alloc(F * 4)),
                'let p: sbuf u8[128, %d]%s;' % (F, alloc(F * 8)),
                'let c: sbuf f32[128, %d]%s;' % (F, alloc(F * 12)),
                'let q: sbuf i32[128, %d]%s;' % (F, alloc(F * 20)),
                'load(a, src);', 'load(b, src);', 'load(p, pred);', 'memset(q, 0);']
        self.alloc, self.stages = alloc, []
        for _ in range(r.randint(2, 6)):
            if r.random() < 0.25:
                self.stage(body, F)
                continue
            k = r.random()
            if k < 0.1:
                # two shuffles through c, which nothing else reads
                body.append('nc_stream_shuffle(c, %s, %s);' % (r.choice('ab'), self.mask()))
                body.append('nc_stream_shuffle(%s, c, %s);' % (r.choice('ab'), self.mask()))
            elif k < 0.35:
                d, s = r.choice([('a', 'a'), ('b', 'a'), ('a', 'b'), ('b', 'b')])
                q = r.choice([(0, 128), (0, 32), (32, 64), (64, 96), (96, 128), (0, 64), (64, 128)])
                if q[1] - q[0] == 64 and q[0] not in (0, 64):
                    q = (0, 64)
                view = '[%d:%d, :]' % q if q != (0, 128) else ''
                body.append('nc_stream_shuffle(%s%s, %s%s, %s);' % (d, view, s, view, self.mask()))
            elif k < 0.55:
                pr = r.choice(['p', 'p', '1', '0'])
                if pr in ('0', '1'):
                    body.append('memset(p, %s);' % pr)
                    pr = 'p'
                extra = r.choice(['', '', ', reverse_pred=true', ', mask=false'])
                body.append('tensor_copy_predicated(src=%s, dst=%s, predicate=%s%s);'
                            % (r.choice(['a', 'b', '2.0']), r.choice(['a', 'b']), pr, extra))
            elif k < 0.7:
                d, s = r.choice([('a', 'b'), ('b', 'a')])
                if r.random() < 0.5:
                    body.append('tensor_copy(%s, %s);' % (d, s))
                else:
                    # adjacent free ranges (fuse-tiles), sometimes with a gap
                    h = r.choice([2, 4, F // 2])
                    g = r.choice([0, 0, 1])
                    body.append('tensor_copy(%s[:, 0:%d], %s[:, 0:%d]);' % (d, h, s, h))
                    body.append('tensor_copy(%s[:, %d:%d], %s[:, %d:%d]);' % (d, h + g, F, s, h + g, F))
                    body.append('load(%s[0:64, 0:%d], src[0:64, 0:%d]);' % (s, h, h))
                    body.append('load(%s[0:64, %d:%d], src[0:64, %d:%d]);' % (s, h, F, h, F))
            elif k < 0.85:
                self.loop(body, F)
            else:
                body.append('memset(%s, %d);' % (r.choice(['a', 'b']), r.randint(0, 5)))
        body.append('store(dst, %s);' % r.choice(['a', 'b']))
        body = body[:5] + self.stages + body[5:]
        return ('kernel %s(src: hbm f32[128, %d], pred: hbm u8[128, %d], dst: hbm f32[128, %d], '
                'dst2: hbm f32[128, %d]) {\n    %s\n}\n' % (name, F, F, F, F, '\n    '.join(body)))


class Aipu:
    def __init__(self, rng):
        self.r = rng

    def expr(self, depth, i):
        r = self.r
        k = r.random()
        if depth > 1 or k < 0.3:
            return 'vload(src[%s])' % ('i*8 + %d' % r.randrange(0, 8) if i else '%d' % r.randrange(0, 56))
        sub = lambda: self.expr(depth + 1, i)
        if k < 0.45:
            return 'vrevs(%s)' % sub()
        if k < 0.6:
            return 'vshfl(%s, %d)' % (sub(), r.randrange(0, 8))
        if k < 0.75:
            mask = r.choice(['8T', '8F', ''.join(r.choice('TF') for _ in range(8))])
            return 'vsel(%s, %s, "%s")' % (sub(), sub(), mask)
        if k < 0.85:
            return 'max(%s, %s)' % (sub(), sub())
        return 'min(%s, %s)' % (sub(), sub())

    def kernel(self, name):
        r = self.r
        body = []
        for t in range(r.randint(1, 4)):
            k = r.random()
            if k < 0.2:
                # vsplit of a vconcat and vconcat of a vsplit's halves
                body.append('let (l%d, h%d) = vsplit(vconcat(%s, %s));'
                            % (t, t, self.expr(1, False), self.expr(1, False)))
                body.append('vstore(dst[%d], vconcat(l%d, h%d));' % (r.randrange(0, 49), t, t))
                body.append('vstore(dst[%d], vrevs(%s));' % (r.randrange(0, 57), r.choice(['l', 'h']) + str(t)))
            elif k < 0.3:
                # vzip halves concatenated
                body.append('let zx%d = %s;' % (t, self.expr(1, False)))
                body.append('let zy%d = %s;' % (t, self.expr(1, False)))
                lo, hi = r.choice([('low', 'high'), ('low', 'high'), ('high', 'low')])
                body.append('vstore(dst[%d], vconcat(vzip(zx%d, zy%d, "%s"), vzip(zx%d, zy%d, "%s")));'
                            % (r.randrange(0, 49), t, t, lo, t, t, hi))
            elif k < 0.6:
                n = r.randint(1, 7)
                body.append('for i in 0..%d { vstore(dst[i*8], %s); }' % (n, self.expr(0, True)))
            else:
                body.append('vstore(dst[%d], %s);' % (r.randrange(0, 57), self.expr(0, False)))
        return ('kernel %s(src: gm i32[64], dst: gm i32[64]) {\n    %s\n}\n'
                % (name, '\n    '.join(body)))


def main():
    target, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    gen = {'ascend': Ascend, 'neuron': Neuron, 'aipu': Aipu}[target](rng)
    out = ['// kdgen %s seed %d: %d kernels\ntarget %s;\n' % (target, seed, count, target)]
    for n in range(count):
        out.append(gen.kernel('k%d' % n))
    sys.stdout.write('\n'.join(out))


if __name__ == '__main__':
    main()
