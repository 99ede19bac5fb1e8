export declare const runTimeFolders: string[];
export declare function copyRunTimeFiles(root: string, outDir: string): void;
