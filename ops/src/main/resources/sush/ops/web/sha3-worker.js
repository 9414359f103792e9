// The rack page's output check (issue 41): fetches one output through the serving sled and
// hashes it with SHA3-256 as it arrives, in a worker, so an output of any size is checked against
// the hash of its status and the page stays responsive. Tells the page its progress, then the
// hash and the output itself (a Blob of what arrived), or why it could not.
'use strict';

// Keccak-f[1600] (FIPS 202) on 25 lanes, each two 32-bit words: lane i is s[2i] (low) and s[2i+1].
const RC = [
  0x00000001, 0x00000000, 0x00008082, 0x00000000, 0x0000808a, 0x80000000, 0x80008000, 0x80000000,
  0x0000808b, 0x00000000, 0x80000001, 0x00000000, 0x80008081, 0x80000000, 0x00008009, 0x80000000,
  0x0000008a, 0x00000000, 0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a, 0x00000000,
  0x8000808b, 0x00000000, 0x0000008b, 0x80000000, 0x00008089, 0x80000000, 0x00008003, 0x80000000,
  0x00008002, 0x80000000, 0x00000080, 0x80000000, 0x0000800a, 0x00000000, 0x8000000a, 0x80000000,
  0x80008081, 0x80000000, 0x00008080, 0x80000000, 0x80000001, 0x00000000, 0x80008008, 0x80000000];
// Rotation of lane x + 5y (rho), and where it goes (pi): lane y + 5((2x + 3y) mod 5).
const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const TO = [];
for (let i = 0; i < 25; i++) {
  const x = i % 5, y = (i - x) / 5;
  TO.push(y + 5 * ((2 * x + 3 * y) % 5));
}

const c = new Uint32Array(10);
const b = new Uint32Array(50);

function keccakF(s) {
  for (let round = 0; round < 24; round++) {
    for (let x = 0; x < 5; x++) {
      c[2 * x] = s[2 * x] ^ s[2 * x + 10] ^ s[2 * x + 20] ^ s[2 * x + 30] ^ s[2 * x + 40];
      c[2 * x + 1] = s[2 * x + 1] ^ s[2 * x + 11] ^ s[2 * x + 21] ^ s[2 * x + 31] ^ s[2 * x + 41];
    }
    for (let x = 0; x < 5; x++) {
      const p = (x + 4) % 5, n = (x + 1) % 5;
      const lo = c[2 * p] ^ ((c[2 * n] << 1) | (c[2 * n + 1] >>> 31));
      const hi = c[2 * p + 1] ^ ((c[2 * n + 1] << 1) | (c[2 * n] >>> 31));
      for (let y = 0; y < 25; y += 5) {
        s[2 * (x + y)] ^= lo;
        s[2 * (x + y) + 1] ^= hi;
      }
    }
    for (let i = 0; i < 25; i++) {
      const lo = s[2 * i], hi = s[2 * i + 1], r = ROT[i], j = TO[i];
      if (r === 0) {
        b[2 * j] = lo;
        b[2 * j + 1] = hi;
      } else if (r < 32) {
        b[2 * j] = (lo << r) | (hi >>> (32 - r));
        b[2 * j + 1] = (hi << r) | (lo >>> (32 - r));
      } else if (r === 32) {
        b[2 * j] = hi;
        b[2 * j + 1] = lo;
      } else {
        const m = r - 32;
        b[2 * j] = (hi << m) | (lo >>> (32 - m));
        b[2 * j + 1] = (lo << m) | (hi >>> (32 - m));
      }
    }
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        const i = x + y, i1 = (x + 1) % 5 + y, i2 = (x + 2) % 5 + y;
        s[2 * i] = b[2 * i] ^ (~b[2 * i1] & b[2 * i2]);
        s[2 * i + 1] = b[2 * i + 1] ^ (~b[2 * i1 + 1] & b[2 * i2 + 1]);
      }
    }
    s[0] ^= RC[2 * round];
    s[1] ^= RC[2 * round + 1];
  }
}

// SHA3-256, fed in pieces of any size: rate 136 bytes, padding 0x06 ... 0x80.
class Sha3 {
  constructor() {
    this.s = new Uint32Array(50);
    this.block = new Uint8Array(136);
    this.held = 0;
  }

  absorb(bytes, off) {
    const s = this.s;
    for (let i = 0; i < 17; i++) {
      const o = off + 8 * i;
      s[2 * i] ^= bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16) | (bytes[o + 3] << 24);
      s[2 * i + 1] ^= bytes[o + 4] | (bytes[o + 5] << 8) | (bytes[o + 6] << 16) | (bytes[o + 7] << 24);
    }
    keccakF(s);
  }

  update(bytes) {
    let off = 0;
    while (off < bytes.length) {
      if (this.held === 0 && bytes.length - off >= 136) {
        this.absorb(bytes, off);
        off += 136;
        continue;
      }
      const take = Math.min(136 - this.held, bytes.length - off);
      this.block.set(bytes.subarray(off, off + take), this.held);
      this.held += take;
      off += take;
      if (this.held === 136) {
        this.absorb(this.block, 0);
        this.held = 0;
      }
    }
  }

  hex() {
    const last = new Uint8Array(136);
    last.set(this.block.subarray(0, this.held));
    last[this.held] ^= 0x06;
    last[135] ^= 0x80;
    this.absorb(last, 0);
    let out = '';
    for (let i = 0; i < 8; i++) {
      for (let k = 0; k < 32; k += 8) out += ((this.s[i] >>> k) & 0xff).toString(16).padStart(2, '0');
    }
    return out;
  }
}

// Under Node (a developer's check against its crypto module's SHA3-256), the hash alone.
if (typeof module !== 'undefined') module.exports = { Sha3 };

// Asked {url, token}: the output at url, read with the page's read token.
if (typeof self !== 'undefined' && typeof module === 'undefined') {
  self.onmessage = async (ev) => {
    try {
      const r = await fetch(ev.data.url, { headers: { Authorization: 'SushRead ' + ev.data.token } });
      if (!r.ok) {
        self.postMessage({ error: String(r.status) });
        return;
      }
      const reader = r.body.getReader();
      const hash = new Sha3();
      const parts = [];
      let bytes = 0, told = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        hash.update(value);
        parts.push(value);
        bytes += value.length;
        if (bytes - told >= 4 * 1024 * 1024) {
          told = bytes;
          self.postMessage({ progress: bytes });
        }
      }
      self.postMessage({ hex: hash.hex(), bytes, blob: new Blob(parts, { type: 'text/plain' }) });
    } catch (e) {
      self.postMessage({ error: String(e && e.message || e) });
    }
  };
}
