/** Unit tests of the headless agent core (and of the components' logic), in Node. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/eval'],
  testMatch: ['**/__tests__/**/*.test.ts'],
  transform: {
    // .tsx: the React components' tests render them (react-dom/server).
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  testTimeout: 30000
};
