// ASCII expectations for LayoutTests: H header, A accounts pane, D detail pane, F flash line, K footer.
let expected80x24 = """
HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
A                                  AD                                          D
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD
FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF
KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK
"""
let expected120x40 = """
HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
A                                              AD                                                                      D
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD
FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF
KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK
"""
let expected60x20 = """
HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
A                                                          A
A                                                          A
A                                                          A
A                                                          A
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD
D                                                          D
D                                                          D
D                                                          D
D                                                          D
D                                                          D
D                                                          D
D                                                          D
D                                                          D
D                                                          D
DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD
FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF
KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK
"""
