pub mod adjacency;
