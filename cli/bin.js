#!/usr/bin/env node
// `npx warden …` in a checkout: runs the TypeScript entry through tsx's CommonJS loader.
// Release builds bundle cli/main.ts instead and do not use this file.
'use strict';

require('tsx/cjs/api').register();
require('./main.ts');
