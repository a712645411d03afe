import type { Contents } from '@jupyterlab/services';
import { attachServerFile } from '../server-files';

/**
 * An in-memory contents manager that copies, and lists a folder (the root,
 * a listed one, or one holding files), as Jupyter's server does.
 */
function fakeContents(
  files: Record<string, string>,
  directories: string[] = []
) {
  const store = new Map(Object.entries(files));
  const calls: string[] = [];
  const isDirectory = (path: string) =>
    path === '' ||
    directories.includes(path) ||
    [...store.keys()].some(file => file.startsWith(`${path}/`));
  const model = (path: string) => {
    const folder = isDirectory(path);
    if (!folder && !store.has(path)) {
      throw new Error(`No such file: ${path}`);
    }
    return {
      path,
      name: path.split('/').pop()!,
      type: folder ? 'directory' : 'file',
      size: folder ? null : store.get(path)!.length
    };
  };
  /** The models of a folder's entries, as a listing has them. */
  const entries = (folder: string) => {
    const prefix = folder ? `${folder}/` : '';
    const names = new Set(
      [...store.keys(), ...directories]
        .filter(path => path.startsWith(prefix) && path !== folder)
        .map(path => path.slice(prefix.length).split('/')[0])
    );
    return [...names].map(name => model(prefix + name));
  };
  const manager = {
    get: async (path: string, options?: { content?: boolean }) => {
      const found = model(path);
      return found.type === 'directory' && options?.content
        ? { ...found, content: entries(path) }
        : found;
    },
    copy: async (from: string, toDir: string) => {
      calls.push(`copy ${from} ${toDir}`);
      const name = from.split('/').pop()!;
      const dot = name.lastIndexOf('.');
      let target = toDir ? `${toDir}/${name}` : name;
      for (let i = 1; store.has(target); i++) {
        target = `${toDir}/${name.slice(0, dot)}-Copy${i}${name.slice(dot)}`;
      }
      store.set(target, store.get(from)!);
      return model(target);
    },
    rename: async (from: string, to: string) => {
      calls.push(`rename ${from} ${to}`);
      if (store.has(to)) {
        throw new Error('exists');
      }
      store.set(to, store.get(from)!);
      store.delete(from);
      return model(to);
    }
  };
  return { contents: manager as unknown as Contents.IManager, store, calls };
}

describe('attachServerFile', () => {
  it('attaches a file in or below the notebook’s directory by its relative path, copying nothing', async () => {
    const { contents, calls } = fakeContents({
      'work/here.csv': 'a',
      'work/data/inner.csv': 'bb'
    });
    expect(await attachServerFile(contents, 'work', 'work/here.csv')).toEqual({
      name: 'here.csv',
      size: 1
    });
    expect(
      await attachServerFile(contents, 'work', 'work/data/inner.csv')
    ).toEqual({ name: 'data/inner.csv', size: 2 });
    expect(await attachServerFile(contents, '', 'work/here.csv')).toEqual({
      name: 'work/here.csv',
      size: 1
    });
    expect(calls).toEqual([]);
  });

  it('copies a file from elsewhere next to the notebook, under its own name when free', async () => {
    const { contents, store } = fakeContents({ 'other/far.csv': 'far' });
    expect(await attachServerFile(contents, 'work', 'other/far.csv')).toEqual({
      name: 'far.csv',
      size: 3
    });
    expect(store.get('work/far.csv')).toBe('far');
    expect(store.get('other/far.csv')).toBe('far');
  });

  it('never replaces a file: the copy gets the name an upload would (far-1.csv)', async () => {
    const { contents, store } = fakeContents({
      'far.csv': 'far',
      'work/far.csv': 'mine'
    });
    expect(await attachServerFile(contents, 'work', 'far.csv')).toEqual({
      name: 'far-1.csv',
      size: 3
    });
    expect(store.get('work/far.csv')).toBe('mine');
    expect(store.get('work/far-1.csv')).toBe('far');
    expect(store.has('work/far-Copy1.csv')).toBe(false);
  });

  it('refuses folders', async () => {
    const { contents } = fakeContents({}, ['data']);
    await expect(attachServerFile(contents, 'work', 'data')).rejects.toThrow(
      'data is a folder'
    );
  });
});
