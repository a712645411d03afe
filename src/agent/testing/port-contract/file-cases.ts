/**
 * Contract cases on the files the agent writes (write_file, and the Undo
 * that removes a file it created): created, replaced and deleted relative
 * to the root, read back through the same port; a missing file is a
 * NoSuchFileError, which is how write_file tells creating from replacing;
 * a file too large to download is a FileTooLargeError.
 */
import { MAX_READ_BYTES } from '../../ports';
import * as check from './check';
import { withPort, type IPortCase } from './contract';

export const FILE_CASES: IPortCase[] = [
  {
    name: 'files: written (in new folders too), replaced and deleted relative to the root',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const path = 'contract-written.txt';
        await port.deleteFile(path).catch(() => undefined);
        await check.rejects(
          () => port.readFile(path),
          'NoSuchFileError',
          /contract-written\.txt/,
          'reading the file before it is written'
        );
        await port.writeFile(path, 'first\nline é\n');
        check.equal(
          await port.readFile(path),
          'first\nline é\n',
          'the created file read back'
        );
        check.ok(
          (await port.listFiles('')).some(e => e.path === path),
          'the created file in the listing of the root'
        );
        await port.writeFile(path, 'second\n');
        check.equal(await port.readFile(path), 'second\n', 'the replaced file');
        await port.deleteFile(path);
        await check.rejects(
          () => port.readFile(path),
          'NoSuchFileError',
          /contract-written\.txt/,
          'reading the deleted file'
        );
        check.ok(
          !(await port.listFiles('')).some(e => e.path === path),
          'the deleted file gone from the listing'
        );
        // Missing folders above a new file are created.
        const deep = 'contract-folder/sub/deep.txt';
        await port.writeFile(deep, 'deep\n');
        check.equal(
          await port.readFile(deep),
          'deep\n',
          'the file in new folders'
        );
        await port.deleteFile(deep);
      })
  },
  {
    name: 'files: one larger than MAX_READ_BYTES is refused, not downloaded, with what to do',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const path = 'contract-large.txt';
        await port.writeFile(path, 'x'.repeat(MAX_READ_BYTES + 1));
        try {
          await check.rejects(
            () => port.readFile(path),
            'FileTooLargeError',
            /contract-large\.txt is 5\.0 MB, too large[\s\S]*nrows=20/,
            'reading a file over the limit'
          );
        } finally {
          await port.deleteFile(path);
        }
      })
  }
];
