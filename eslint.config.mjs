// ESLint for the extension, the headless core and the UI tests.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'lib/',
      '**/node_modules/',
      'jupyterlab_notebook_agent/labextension/',
      'ui-tests/test-results/',
      'ui-tests/playwright-report/',
      'ui-tests/test-extension/labextensions/',
      // Generated: the docs site, converted local models.
      'build/'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports' }
      ],
      'no-console': ['error', { allow: ['warn', 'error', 'debug'] }],
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error'
    }
  },
  {
    // No import cycles: a cycle means two modules are one concept split in
    // two, or a type that belongs in a module of its own.
    files: ['src/**/*.ts', 'src/**/*.tsx', 'eval/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })
      ]
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] }
  },
  {
    // Every switch over a union handles each of its members (or says why
    // not in a default): a member added later is a lint error where it is
    // not handled, not a loop that spins or a case silently dropped. Typed
    // lint: the product's sources, through the projects that compile them.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/**/__tests__/**'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.headless.json'],
        tsconfigRootDir: import.meta.dirname
      }
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { requireDefaultForNonUnion: false }
      ]
    }
  },
  {
    // The views read the agent's types and their own; the JupyterLab glue
    // implements what they need (components/config/sidebar-config.ts), never the
    // other way round.
    files: ['src/components/**/*.ts', 'src/components/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // From a feature folder (components/chat/) and its tests.
              group: [
                '../../jupyter/*',
                '../../widgets/*',
                '../../../jupyter/*',
                '../../../widgets/*'
              ],
              message:
                'src/components imports agent types and its own, never JupyterLab glue: declare what it needs in components/config/sidebar-config.ts.'
            }
          ]
        }
      ]
    }
  },
  {
    // The agent core is headless: it must run in Node and in the browser.
    files: ['src/agent/**/*.ts'],
    ignores: ['src/agent/**/__tests__/**'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@jupyterlab/*',
                '@lumino/*',
                'react',
                'react/*',
                'react-dom',
                'react-dom/*'
              ],
              message:
                'src/agent is the headless core: it imports nothing from JupyterLab, Lumino or React. Put glue in src/jupyter.'
            }
          ]
        }
      ],
      'no-restricted-globals': [
        'error',
        ...[
          'window',
          'document',
          'navigator',
          'localStorage',
          'sessionStorage',
          'HTMLElement'
        ].map(name => ({
          name,
          message: 'src/agent must not touch the DOM.'
        })),
        ...['process', 'Buffer', '__dirname', 'require'].map(name => ({
          name,
          message:
            'src/agent must also run in the browser: no Node-only globals.'
        }))
      ]
    }
  },
  {
    // The execution engine serves both ports: the browser's and Node's. It
    // may use @jupyterlab/services (and its small browser-safe companions),
    // nothing of JupyterLab's UI, no DOM and no Node built-ins.
    files: ['src/kernel/**/*.ts'],
    ignores: ['src/kernel/**/__tests__/**'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@jupyterlab/*',
                '!@jupyterlab/services',
                '!@jupyterlab/coreutils',
                '!@jupyterlab/nbformat',
                '@lumino/*',
                'react',
                'react/*',
                'react-dom',
                'react-dom/*',
                'node:*'
              ],
              message:
                'src/kernel is the browser-safe execution engine: it depends on @jupyterlab/services only (no JupyterLab UI, Lumino widgets, React or Node built-ins).'
            }
          ]
        }
      ],
      'no-restricted-globals': [
        'error',
        ...[
          'window',
          'document',
          'navigator',
          'localStorage',
          'sessionStorage',
          'HTMLElement',
          'process',
          'Buffer',
          '__dirname',
          'require'
        ].map(name => ({
          name,
          message:
            'src/kernel runs in the browser and in Node: no DOM, no Node-only globals.'
        }))
      ]
    }
  },
  {
    files: [
      'src/agent/**/__tests__/**/*.ts',
      'src/kernel/**/__tests__/**/*.ts',
      'ui-tests/**/*.ts'
    ],
    languageOptions: { globals: { ...globals.node, ...globals.jest } }
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node }, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' }
  }
);
