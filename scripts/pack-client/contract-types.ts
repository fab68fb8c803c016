/**
 * The part of @snapdeck/contract that the client's declarations name, as plain TypeScript: the
 * contract's types are inferred from zod schemas (z.infer<typeof …>), which a partner's compiler
 * could only read with the contract and zod installed. The compiler spells each one out instead
 * (its structure, not its zod expression), so the package depends on nothing; the consumer
 * type-check in test/client-package.test.ts shows the result is still typed per game.
 */
import ts from 'typescript';

/** Names imported by `files` from '@snapdeck/contract' or one of its subpaths. */
export function contractImports(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const source = ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const from = statement.moduleSpecifier;
      if (!from || !ts.isStringLiteral(from) || !from.text.startsWith('@snapdeck/contract')) continue;
      const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : statement.exportClause;
      if (!bindings || !('elements' in bindings)) throw new Error(`${file}: import named members of ${from.text}`);
      for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text);
    }
  }
  return names;
}

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias | ts.TypeFormatFlags.UseStructuralFallback;

/** `export type …` / `export declare const …` lines for `names`, read from the contract's index. */
export function contractDeclarations(contractIndex: string, names: Iterable<string>): string {
  const program = ts.createProgram([contractIndex], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(contractIndex)!)!;
  const exports = new Map(checker.getExportsOfModule(module).map((symbol) => [symbol.name, symbol]));
  const lines: string[] = [];
  const queue = [...names].sort();
  const queued = new Set(queue);
  for (let next = 0; next < queue.length; next++) {
    const name = queue[next]!;
    const found = exports.get(name);
    if (!found) throw new Error(`@snapdeck/contract exports no ${name}`);
    const symbol = found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
    const declaration = symbol.declarations?.[0];
    if (!declaration) throw new Error(`${name}: no declaration`);
    if (symbol.flags & ts.SymbolFlags.Interface && ts.isInterfaceDeclaration(declaration)) {
      // An interface is printed as written (a type printer names it instead of spelling it
      // out); the contract's types it names are spelled out too.
      const text = declaration.getText();
      lines.push(text.startsWith('export ') ? text : `export ${text}`);
      for (const [, named] of text.matchAll(/\b([A-Z]\w*)\b/g)) {
        if (exports.has(named!) && !queued.has(named!)) {
          queued.add(named!);
          queue.push(named!);
        }
      }
    } else if (symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) {
      const parameters = ts.isTypeAliasDeclaration(declaration) || ts.isInterfaceDeclaration(declaration) ? declaration.typeParameters : undefined;
      const generic = parameters ? `<${parameters.map((parameter) => parameter.name.text).join(', ')}>` : '';
      const text = checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), declaration, FLAGS);
      lines.push(`export type ${name}${generic} = ${text};`);
    } else if (symbol.flags & ts.SymbolFlags.Variable) {
      lines.push(`export declare const ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), declaration, FLAGS)};`);
    } else {
      throw new Error(`${name}: neither a type nor a constant`);
    }
  }
  const leaked = lines.filter((line) => /\bz\.|\$Zod|zod/.test(line));
  if (leaked.length > 0) throw new Error(`contract types still name zod:\n${leaked.join('\n')}`);
  return `// Generated from the snapdeck contract by scripts/pack-client (the API's shapes, spelled out).\n${lines.join('\n')}\n`;
}
