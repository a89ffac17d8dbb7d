// The layering rule, as an allow-list (VS Code's code-layering): each source folder is named by where its
// code runs, and LAYERS says which of our folders and which packages each one may import. Whatever a
// layer does not list is refused — a new dependency is a line here, read in review, not something that
// slips past a list of what is forbidden. The most specific folder wins (node/engine/model/ before
// node/engine/). Debt that breaks a rule is listed in KNOWN_EXCEPTIONS with its reason, as Perfetto's
// import checker lists its own. `node --import tsx scripts/check-layers.ts` (part of `npm run lint`)
// checks the tree; docs/architecture.md §2 explains the layers.
//
// Imports are read with the TypeScript parser: static `import` / `export … from` (type-only or not),
// `import x = require()`, dynamic `import()`, `require()`, `import.meta.resolve()` and
// `new URL('./file', import.meta.url)` (worker and child-process entries). What imports cannot show is
// not checked here: the DOM or Node globals used without an import. (SQL outside the store cannot pass
// a Store around any more: its connections are private, reachable only through store/test-access,
// which PRIVATE_MODULES refuses to every layer but the store.)
import ts from 'typescript';
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/** An entry of `ours`: a folder ending in `/`, or one module named without its extension. */
type Ours = string;

export interface Layer {
  /** Folder (ending in `/`) or module (without extension) the rule is for. */
  folder: string;
  /** Why the layer has these limits: printed with every refusal. */
  rule: string;
  /** Our folders and modules it may import. */
  ours: readonly Ours[];
  /** Packages it may import; `node:*` is every Node builtin. */
  packages: readonly string[];
}

const NODE = 'node:*';

export const LAYERS: readonly Layer[] = [
  { folder: 'common/contract/', rule: 'the contract runs in every process: nothing but itself', ours: ['common/contract/'], packages: [] },
  { folder: 'common/', rule: 'common/ runs in the renderer and in Node: no Node, DOM-only or Electron module, nothing of node/ or browser/', ours: ['common/'], packages: [] },
  { folder: 'browser/', rule: 'browser/ runs in a sandboxed page: common/ and UI packages, no Node builtin, nothing of node/ or Electron', ours: ['common/', 'browser/'], packages: ['react', 'react-dom', 'zustand', 'uplot'] },
  { folder: 'electron-preload/', rule: 'the preload exposes the contract over one IPC channel: electron and the contract only', ours: ['common/contract/', 'electron-preload/'], packages: ['electron'] },
  { folder: 'electron-main/', rule: 'Electron main is thin glue: never the engine or SQLite (the engine runs in a utility process)', ours: ['common/contract/', 'electron-main/', 'node/workspace', 'node/bridge/static-path'], packages: ['electron', NODE] },
  { folder: 'node/engine/store/', rule: 'the store is the only code that opens SQLite', ours: ['common/', 'node/engine/store/', 'node/engine/importers/types'], packages: [NODE, 'better-sqlite3', 'tsx'] },
  { folder: 'node/engine/importers/', rule: 'importers parse into a Sink: never the store, the model or the report', ours: ['common/', 'node/engine/importers/', 'node/engine/signals/'], packages: [NODE] },
  { folder: 'node/engine/model/', rule: 'the model is pure: no I/O, no store, bridge or Node builtin', ours: ['common/', 'node/engine/model/', 'node/engine/signals/'], packages: [] },
  { folder: 'node/engine/live/', rule: 'the engine is plain Node (never electron); the NVML addon is reached only from live/', ours: ['common/', 'node/engine/', 'native/nvml/'], packages: [NODE] },
  { folder: 'node/engine/', rule: 'the engine is plain Node: never electron, the bridge, the CLI or the UI; better-sqlite3 only in store/', ours: ['common/', 'node/engine/'], packages: [NODE, 'tsx'] },
  { folder: 'node/bridge/', rule: 'the bridge serves the engine over loopback: Node, ws and the engine', ours: ['common/', 'node/bridge/', 'node/engine/'], packages: [NODE, 'ws'] },
  { folder: 'node/cli/', rule: 'the CLI drives the engine and the bridge in plain Node', ours: ['common/', 'node/'], packages: [NODE, 'tar-stream'] },
  { folder: 'node/', rule: 'node/ is plain Node, never electron or the UI', ours: ['common/', 'node/'], packages: [NODE] },
  { folder: 'native/nvml/', rule: 'the NVML addon wrapper loads its own binary', ours: ['native/nvml/'], packages: [NODE] },
];

export interface KnownException {
  file: string;
  /** The imported module, repository-relative without extension, or a package name. */
  imports: string;
  /** Only `import type` is excused. */
  typeOnly?: boolean;
  reason: string;
}

export const KNOWN_EXCEPTIONS: readonly KnownException[] = [];

/**
 * Modules no layer may import but their own folder's: tests (which are not layers) reach them. The
 * store's connections, for tests that look at tables directly.
 */
export const PRIVATE_MODULES: readonly { module: string; owner: string; reason: string }[] = [
  { module: 'node/engine/store/test-access', owner: 'node/engine/store/', reason: "the store's connections are private: SQL lives in node/engine/store/ (tests reach them through test/helpers/store-sql.ts)" },
];

export interface ImportRef {
  specifier: string;
  line: number;
  typeOnly: boolean;
}

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  /** What the specifier names: a repository path without extension, `node:x` or a package name. */
  target: string;
  layer: string;
  message: string;
}

const SOURCE = /\.(ts|tsx|mts|cts|mjs|cjs|js)$/;
const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));

function stringArg(node: ts.CallExpression | ts.NewExpression): string | null {
  const a = node.arguments?.[0];
  return a && ts.isStringLiteralLike(a) ? a.text : null;
}

function isImportMeta(node: ts.Node | undefined): boolean {
  return !!node && ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword;
}

/** Every module a source file names, with whether only types are taken. */
export function importsOf(file: string, text: string): ImportRef[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : /\.(mjs|cjs|js)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out: ImportRef[] = [];
  const add = (node: ts.Node, specifier: string, typeOnly: boolean) => out.push({ specifier, typeOnly, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier)) {
      const c = node.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node, node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteralLike(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      add(node, node.moduleSpecifier.text, node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteralLike(node.moduleReference.expression)) {
      add(node, node.moduleReference.expression.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteralLike(node.argument.literal)) {
      add(node, node.argument.literal.text, true);
    } else if (ts.isCallExpression(node)) {
      const s = stringArg(node);
      const callee = node.expression;
      if (s !== null) {
        if (callee.kind === ts.SyntaxKind.ImportKeyword) add(node, s, false);
        else if (ts.isIdentifier(callee) && callee.text === 'require') add(node, s, false);
        else if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' && isImportMeta(callee.expression)) add(node, s, false);
      }
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
      const s = stringArg(node);
      const base = node.arguments?.[1];
      if (s !== null && /^\.\.?\//.test(s) && base && ts.isPropertyAccessExpression(base) && base.name.text === 'url' && isImportMeta(base.expression)) add(node, s, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** A test kept beside the code it tests (`*.test.ts`): not a layer, and no layer may import it. */
const isTest = (file: string) => /\.test\.(ts|tsx|mts|cts|mjs|cjs|js)$/.test(file) || /\.test$/.test(file);

/** The layer a repository-relative file belongs to, or undefined (tests, scripts, fixtures). */
export function layerOf(file: string): Layer | undefined {
  if (isTest(file)) return undefined;
  let best: Layer | undefined;
  for (const l of LAYERS) if (covers(l.folder, stripExt(file)) && (!best || l.folder.length > best.folder.length)) best = l;
  return best;
}

function stripExt(p: string): string {
  return p.replace(/\.(d\.ts|ts|tsx|mts|cts|mjs|cjs|js)$/, '').replace(/\/index$/, '');
}

function covers(entry: string, target: string): boolean {
  return entry.endsWith('/') ? target.startsWith(entry) || `${target}/` === entry : target === entry;
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** What a specifier names from `file`: a repository path (no extension), `node:x`, or a package. */
export function targetOf(file: string, specifier: string): { kind: 'ours' | 'builtin' | 'package'; name: string } {
  if (specifier.startsWith('.')) return { kind: 'ours', name: stripExt(posix.normalize(posix.join(posix.dirname(file), specifier))) };
  if (specifier.startsWith('node:')) return { kind: 'builtin', name: specifier };
  const pkg = packageOf(specifier);
  if (BUILTINS.has(pkg)) return { kind: 'builtin', name: `node:${specifier}` };
  return { kind: 'package', name: pkg };
}

function excused(file: string, ref: ImportRef, target: string): boolean {
  return KNOWN_EXCEPTIONS.some((e) => e.file === file && e.imports === target && (!e.typeOnly || ref.typeOnly));
}

/** The refused imports of one file (repository-relative path, `/`-separated) given its text. */
export function checkSource(file: string, text: string): Violation[] {
  const layer = layerOf(file);
  if (!layer) return [];
  const out: Violation[] = [];
  for (const ref of importsOf(file, text)) {
    const t = targetOf(file, ref.specifier);
    let ok: boolean;
    if (t.kind === 'ours') ok = layer.ours.some((o) => covers(o, t.name));
    else if (t.kind === 'builtin') ok = layer.packages.includes(NODE) || layer.packages.includes(t.name);
    else ok = layer.packages.includes(t.name);
    if (t.kind === 'ours' && isTest(t.name)) {
      out.push({ file, line: ref.line, specifier: ref.specifier, target: t.name, layer: layer.folder, message: `${file}:${ref.line}: import '${ref.specifier}' is a test — code never imports its tests` });
      continue;
    }
    const sealed = t.kind === 'ours' ? PRIVATE_MODULES.find((m) => m.module === t.name && !file.startsWith(m.owner)) : undefined;
    if (sealed) {
      out.push({ file, line: ref.line, specifier: ref.specifier, target: t.name, layer: layer.folder, message: `${file}:${ref.line}: import '${ref.specifier}' (${t.name}) is private to ${sealed.owner} — ${sealed.reason}` });
      continue;
    }
    if (ok || excused(file, ref, t.name)) continue;
    const what = t.kind === 'builtin' ? `the Node builtin ${t.name}` : t.kind === 'package' ? `the package ${t.name}` : t.name;
    const allowed = [...layer.ours, ...layer.packages].join(', ') || 'nothing';
    out.push({
      file,
      line: ref.line,
      specifier: ref.specifier,
      target: t.name,
      layer: layer.folder,
      message: `${file}:${ref.line}: import '${ref.specifier}' (${what}) is not allowed in ${layer.folder} — ${layer.rule}. ${layer.folder} may import: ${allowed}`,
    });
  }
  return out;
}

const ROOTS = ['common', 'node', 'browser', 'electron-main', 'electron-preload', 'native/nvml'];

function walk(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (n === 'node_modules' || n === 'build') continue;
    const p = join(dir, n);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (SOURCE.test(n)) out.push(p);
  }
}

/** Every refused import under the layer folders of a checkout. */
export function checkTree(root: string): Violation[] {
  const files: string[] = [];
  for (const r of ROOTS) walk(join(root, r), files);
  return files.flatMap((f) => checkSource(relative(root, f).split(sep).join('/'), readFileSync(f, 'utf8')));
}

/** Exceptions that no longer excuse anything (the debt was paid: remove the line). */
export function staleExceptions(root: string): KnownException[] {
  return KNOWN_EXCEPTIONS.filter((e) => {
    let text: string;
    try {
      text = readFileSync(join(root, e.file), 'utf8');
    } catch {
      return true;
    }
    return !importsOf(e.file, text).some((ref) => {
      const t = targetOf(e.file, ref.specifier);
      return t.name === e.imports && (!e.typeOnly || ref.typeOnly);
    });
  });
}
