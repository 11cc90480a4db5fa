/**
 * The saved calibration goes through an ordered save queue, off the caller's thread: a write requested
 * now is not on disk when the request returns, the newest calibration wins over one whose write was
 * in flight, the file is replaced whole (no temp file stays), "no calibration" removes it, and one
 * still waiting for its delay is written on close.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SessionFiles } from '../../src/service/session/session-files';
import type { SavedCalibration } from '../../src/service/meter/tally';

function openFiles(t: { after(fn: () => void): void }): { files: SessionFiles; file: string; folder: string } {
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-calibration-'));
  const files = new SessionFiles(
    storage,
    's1',
    'gpt-4o',
    new Date(0).toISOString(),
    () => assert.fail('no state save in this test'),
    (error) => assert.fail(error),
  );
  files.load(() => undefined);
  t.after(() => {
    files.close();
    rmSync(storage, { recursive: true, force: true });
  });
  const folder = files.folder!;
  return { files, file: path.join(folder, 'calibration.json'), folder };
}

const calibration = (tokens: number): SavedCalibration => ({ tokens, cachedAdded: 0, ids: [`e${tokens}`] });
const onDisk = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as SavedCalibration;
const temps = (folder: string) => readdirSync(folder).filter((name) => name.endsWith('.tmp'));

test('a calibration write runs off the caller: not on disk when requested, whole once done, no temp file left', async (t) => {
  const { files, file, folder } = openFiles(t);
  files.saveCalibration(
    () => calibration(100),
    () => undefined,
  );
  const saving = files.whenCalibrationSaved();
  assert.equal(existsSync(file), false, 'written synchronously');
  await saving;
  assert.deepEqual(onDisk(file), calibration(100));
  assert.deepEqual(temps(folder), []);
});

test('the newest calibration wins over a write in flight, and "none" removes the file', async (t) => {
  const { files, file, folder } = openFiles(t);
  let current = calibration(1);
  const log: string[] = [];
  files.saveCalibration(
    () => current,
    (_level, message) => log.push(message),
  );
  const first = files.whenCalibrationSaved();
  // Saved while the first write is in flight: coalesced into one next write of the newest value.
  for (let n = 2; n <= 5; n++) {
    current = calibration(n);
    files.saveCalibration(
      () => current,
      (_level, message) => log.push(message),
    );
  }
  await first;
  await files.whenCalibrationSaved();
  assert.deepEqual(onDisk(file), calibration(5));
  assert.deepEqual(temps(folder), []);
  files.saveCalibration(
    () => undefined,
    () => undefined,
  );
  await files.whenCalibrationSaved();
  assert.equal(existsSync(file), false, 'no calibration in force: no file');
  assert.deepEqual(log, []);
});

test('on close a calibration still waiting for its delay is written, and overtakes a write in flight', async (t) => {
  const { files, file } = openFiles(t);
  let current = calibration(7);
  files.saveCalibration(
    () => current,
    () => undefined,
  );
  const inFlight = files.whenCalibrationSaved();
  current = calibration(8);
  files.saveCalibration(
    () => current,
    () => undefined,
  );
  files.close();
  assert.deepEqual(onDisk(file), calibration(8), 'written before close returned');
  await inFlight;
  assert.deepEqual(onDisk(file), calibration(8), 'the overtaken write left the file alone');
});
