// SVG files are bundled as strings by the extension builder.
declare module '*.svg' {
  const value: string;
  export default value;
}
