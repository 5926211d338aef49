// wat2wasm.js IN.wat OUT.wasm: wabt's parser (npm `wabt`, under ./.tools) with every feature flag off but the
// ones a test names in a first-line comment `;; features: threads simd ...`.
const fs = require('fs');
const path = require('path');
const [, , input, output] = process.argv;
const text = fs.readFileSync(input, 'utf8');
const m = /^;; features:(.*)$/m.exec(text);
const features = {};
for (const f of (m ? m[1].trim().split(/\s+/) : [])) features[f] = true;
require(path.join(__dirname, '.tools', 'node_modules', 'wabt'))().then((wabt) => {
  const mod = wabt.parseWat(path.basename(input), text, features);
  mod.validate(features);
  fs.writeFileSync(output, Buffer.from(mod.toBinary({}).buffer));
});
