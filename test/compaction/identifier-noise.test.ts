/**
 * Identifiers are only tokens that occur as identifiers: a numbered line a file reader or `grep -n`
 * on one file shows (`54:        VaultError::TooManySettlements`) is a line of code, a Rust path such
 * as `VaultError::InvalidAmount` is no error report, and a URL cut from a template literal
 * (`http://127.0.0.1:${port}`) is no address.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

test('a numbered line of code naming an error type is not an error line', () => {
  const output = [
    '54:        VaultError::TooManySettlements',
    '28\t            @ VaultError::InvalidVaultSigner,',
    '12→    return Err(VaultError::InvalidAmount.into());',
  ].join('\n');
  const ids = extractIdentifiers(output);
  assert.ok(!ids.some((i) => i.includes('VaultError')), ids.join('\n'));
});

test('a real error line is still one', () => {
  const ids = extractIdentifiers("src/a.ts(3,1): error TS2304: Cannot find name 'X'.\nTypeError: x is not a function");
  assert.ok(ids.includes('TypeError: x is not a function'), ids.join('\n'));
  assert.ok(
    ids.some((i) => i.includes('error TS2304')),
    ids.join('\n'),
  );
});

test('a URL cut from a template literal is not an identifier; a whole URL is', () => {
  const ids = extractIdentifiers('const base = `http://127.0.0.1:${port}/api`;\nsee https://example.com/docs');
  assert.ok(!ids.some((i) => i.startsWith('http://127.0.0.1')), ids.join('\n'));
  assert.ok(ids.includes('https://example.com/docs'), ids.join('\n'));
});
