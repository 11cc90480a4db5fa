/**
 * The named variants of a message content as text: what text, refusal, image, file and other parts
 * become in each, and that base64 data never appears.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainText, textWithOmissions, textWithPlaceholders } from '../../src/compaction/content-text';

/** A PNG data URL whose header says `width`×`height` (the pixels are not needed to read the size). */
function pngDataUrl(width: number, height: number): string {
  const head = Buffer.alloc(24);
  head.writeUInt32BE(0x89504e47, 0);
  head.writeUInt32BE(0x0d0a1a0a, 4);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'latin1');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return `data:image/png;base64,${head.toString('base64')}`;
}

const png = pngDataUrl(800, 600);
const parts = [
  { type: 'text', text: 'first' },
  { type: 'image_url', image_url: { url: png } },
  { type: 'text', text: '' },
  { type: 'refusal', refusal: 'I cannot do that' },
  { type: 'file', file: { filename: 'report.pdf', file_data: 'JVBERi0x' } },
  { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
  { type: 'text', text: 'last' },
];

test('a string is its own text in every variant; absent content is empty', () => {
  for (const variant of [plainText, textWithPlaceholders, textWithOmissions]) {
    assert.equal(variant('just text'), 'just text');
    assert.equal(variant(null), '');
    assert.equal(variant(undefined), '');
  }
});

test('plainText keeps the words alone: text and refusals, empty parts dropped, joined by the separator', () => {
  assert.equal(plainText(parts), 'first\nI cannot do that\nlast');
  assert.equal(plainText(parts, '\n\n'), 'first\n\nI cannot do that\n\nlast');
  assert.equal(plainText([{ type: 'image_url', image_url: { url: png } }]), '');
});

test('textWithPlaceholders writes each other part as a short placeholder', () => {
  assert.equal(
    textWithPlaceholders(parts),
    'first\n[image 800x600]\nI cannot do that\n[file report.pdf]\n[input_audio]\nlast',
  );
  assert.equal(
    textWithPlaceholders([{ type: 'image_url', image_url: { url: 'data:image/webp;base64,AAAA' } }]),
    '[image]',
  );
  assert.equal(
    textWithPlaceholders([{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }]),
    '[image https://example.com/a.png]',
  );
  assert.equal(textWithPlaceholders([{ type: 'file', file: { file_id: 'file-1' } }]), '[file]');
});

test('textWithOmissions says which parts a text-only model source was not sent', () => {
  assert.equal(
    textWithOmissions(parts),
    [
      'first',
      '[image omitted: not supported by this model source]',
      'I cannot do that',
      '[file omitted: not supported by this model source]',
      '[input_audio omitted: not supported by this model source]',
      'last',
    ].join('\n'),
  );
});

test('no variant lets base64 data through', () => {
  for (const variant of [plainText, textWithPlaceholders, textWithOmissions]) {
    const text = variant(parts);
    assert.ok(!text.includes('base64'), variant.name);
    assert.ok(!text.includes(png.slice(30, 50)), variant.name);
    assert.ok(!text.includes('JVBERi0x'), variant.name);
  }
});
