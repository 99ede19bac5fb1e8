export declare function dropBuildInfoWithoutOutputs(root: string, project: string): boolean;
