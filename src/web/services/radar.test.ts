import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axisAngle, DEFAULT_LAYOUT, pointsAttr, radarPoints, radarSvg } from './radar.ts';

const layout = { cx: 100, cy: 100, r: 50, max: 10 };

describe('radar geometry', () => {
  test('the first axis points up and the rest follow clockwise, 60° apart', () => {
    assert.equal(axisAngle(0, 6), -Math.PI / 2);
    assert.ok(Math.abs(axisAngle(1, 6) - axisAngle(0, 6) - Math.PI / 3) < 1e-12);
  });

  test('a full score lands on the outer ring, zero at the centre', () => {
    const [top, right, , bottom] = radarPoints([10, 10, 0, 10, 0, 0], layout);
    assert.deepEqual(top, { x: 100, y: 50 });
    assert.deepEqual(right, { x: 143.3, y: 75 });
    assert.deepEqual(bottom, { x: 100, y: 150 });
    assert.deepEqual(radarPoints([0, 0, 0, 0, 0, 0], layout), Array(6).fill({ x: 100, y: 100 }));
  });

  test('values scale linearly and are clamped to [0, max]', () => {
    const [half, over, under] = radarPoints([5, 15, -3], { ...layout, r: 60 });
    assert.deepEqual(half, { x: 100, y: 70 });
    // 15 is clamped to 10: the full radius along the second of three axes (30° below horizontal)
    assert.deepEqual(over, { x: 151.96, y: 130 });
    assert.deepEqual(under, { x: 100, y: 100 });
  });

  test('points render as an SVG points attribute', () => {
    assert.equal(
      pointsAttr([
        { x: 1, y: 2 },
        { x: 3.5, y: 4 },
      ]),
      '1,2 3.5,4',
    );
  });
});

describe('radar SVG', () => {
  const axes = { path: 4, channel: 0, retention: 5, timing: 5, verification: 5, cost: 8 };
  const svg = radarSvg('Example', axes).value;

  test('is an image with a title and a description naming every score', () => {
    assert.match(svg, /<svg[^>]+role="img"[^>]+aria-labelledby="radar-title radar-desc"/);
    assert.match(svg, /<title id="radar-title">Friction profile of Example<\/title>/);
    assert.match(svg, /<desc id="radar-desc">[^<]*Path 4, Channel 0, Retention 5, Timing 5, Verification 5, Cost 8\./);
  });

  test('has six axes and the polygon of the scores', () => {
    assert.equal(svg.match(/<line /g)?.length, 6);
    assert.equal(svg.match(/<text /g)?.length, 6);
    const expected = pointsAttr(radarPoints([4, 0, 5, 5, 5, 8], DEFAULT_LAYOUT));
    assert.ok(svg.includes(`<polygon class="radar-shape" points="${expected}"/>`));
  });

  test('escapes the service name', () => {
    assert.match(radarSvg('A <b> & "c"', axes).value, /Friction profile of A &lt;b&gt; &amp; &quot;c&quot;/);
  });
});
