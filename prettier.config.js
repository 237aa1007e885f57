// Prettier's settings, chosen to match how the code was already written: single quotes,
// semicolons, trailing commas everywhere, two spaces. printWidth is 160 rather than Prettier's 80
// because the code is written in long lines (a call, a signature or an expectation to a line;
// 1,888 lines ran past 140 characters, 832 past 160). Prettier's first pass over the code
// rewrote 10,530 of its lines at width 80, 3,940 at 120 and 1,298 at 160, mostly wrapping the
// longest. Markdown is left alone (.prettierignore). `npm run format` writes; `npm test` checks.
/** @type {import('prettier').Config} */
export default {
  printWidth: 160,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: true,
  trailingComma: 'all',
  // electron-builder.yml quotes its strings with double quotes.
  overrides: [{ files: ['*.yml', '*.yaml'], options: { singleQuote: false } }],
};
