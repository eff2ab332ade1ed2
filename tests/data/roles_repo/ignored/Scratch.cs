namespace Shop;

public class Scratch { }
