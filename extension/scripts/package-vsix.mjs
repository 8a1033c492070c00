// Builds council-<version>.vsix from a staging folder (out/vsix) holding exactly what ships: the bundled
// extension, media, l10n (its own few strings in other languages), the Council custom agent (agents/), and the
// Python sidecar (server/, personas/, pyproject.toml, README.md). Staging keeps vsce from walking .venv/, .e2e/
// and node_modules/ (hundreds of thousands of files) and makes the content explicit.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const stage = path.join(root, 'out', 'vsix');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const skip = (p) => /(^|[\\/])(__pycache__|[^\\/]+\.egg-info|\.pytest_cache)([\\/]|$)|\.py[co]$/.test(p);

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(path.join(stage, 'out'), { recursive: true });
const shipped = { ...pkg };
delete shipped.scripts;
delete shipped.devDependencies;
delete shipped.dependencies; // bundled by esbuild
fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(shipped, null, 2));
fs.copyFileSync(path.join(root, 'out', 'extension.js'), path.join(stage, 'out', 'extension.js'));
for (const item of ['media', 'l10n', 'agents', 'server', 'personas', 'pyproject.toml', 'README.md', 'LICENSE']) {
  const from = path.join(root, item);
  if (!fs.existsSync(from)) continue;
  // Symlinks are left out: server/council/_personas is a development link to personas/ (shipped on its own).
  fs.cpSync(from, path.join(stage, item), { recursive: true, filter: (src) => !skip(path.relative(root, src)) && !fs.lstatSync(src).isSymbolicLink() });
}
fs.writeFileSync(path.join(stage, '.vscodeignore'), '**/*.map\n');
if (!fs.existsSync(path.join(stage, 'README.md'))) {
  fs.writeFileSync(path.join(stage, 'README.md'), `# ${pkg.displayName}\n\n${pkg.description}\n`);
}
const out = path.join(root, `${pkg.name}-${pkg.version}.vsix`);
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], {
  cwd: stage,
  stdio: ['ignore', 'inherit', 'inherit'],
});
console.log(`${path.basename(out)}: ${(fs.statSync(out).size / 1024).toFixed(1)} KB`);
